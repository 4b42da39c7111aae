"""A user's attack for the attack-audit tests (given as ``--attacks attack_examples:RewriteLongest``
or by that name to :func:`gecscope.meta_eval.audit.run_audit`), shared by the unit and CLI tests."""

from __future__ import annotations

from gecscope.meta_eval.attacks import Attack, AttackContext, AttackOutput


class RewriteLongest(Attack):
    """The best system's output with its longest sentence replaced whole by the next
    sentence's reference. On CoNLL-2014's sentence 333 the I-measure refuses such a rewrite
    (its candidate references cannot be enumerated)."""

    name = "rewrite-longest"
    description = "the best system's output, its longest sentence replaced by another's reference"
    needs_references = True

    def build(self, ctx: AttackContext) -> AttackOutput:
        refs = ctx.require_references(self.name)
        out = [list(t) for t in ctx.systems[ctx.best].tokens]
        i = max(range(len(out)), key=lambda k: len(ctx.sources[k]))
        out[i] = list(refs[(i + 1) % len(out)].reference(0))
        return self.output(ctx, out, notes={"row": i})


#: the attack's ``module:Class`` spec
REWRITE = f"{__name__}:RewriteLongest"
