"""System-level correlation of metric scores with human scores, and window analysis.

Pearson, Spearman and Kendall (tau-b) come from ``scipy.stats``. A correlation that is not
defined (fewer than two systems, or constant scores) is ``nan`` instead of a warning.
Window analysis (Kobayashi et al. 2024, SEEDA) sorts the systems by human score, best first,
and correlates each run of ``window`` consecutive systems, showing whether a metric separates
the strong systems as well as it separates strong from weak ones.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gecscope.errors import ConfigError


@dataclass(frozen=True)
class Correlation:
    """Correlations of one metric with one human ranking over ``systems``."""

    pearson: float
    spearman: float
    kendall: float
    systems: tuple[str, ...]
    human: tuple[float, ...] = field(repr=False)
    metric: tuple[float, ...] = field(repr=False)

    @property
    def n(self) -> int:
        return len(self.systems)

    def as_dict(self) -> dict[str, object]:
        return {"pearson": self.pearson, "spearman": self.spearman, "kendall": self.kendall,
                "systems": list(self.systems), "human": list(self.human),
                "metric": list(self.metric)}


def _safe(fn: object, x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(x, y)[0])  # type: ignore[operator]
    return value


def correlate(metric: Mapping[str, float], human: Mapping[str, float],
              systems: Sequence[str] | None = None) -> Correlation:
    """Pearson, Spearman and Kendall between metric and human scores of ``systems``.

    ``systems`` defaults to the systems both mappings have, in the human mapping's order.
    """
    from gecscope._optional import require

    stats = require("scipy.stats", "stats", "correlations")
    names = tuple(systems) if systems is not None else tuple(s for s in human if s in metric)
    missing = [s for s in names if s not in metric or s not in human]
    if missing:
        raise ConfigError(f"no score for system(s) {', '.join(missing)} "
                          f"(metric has {len(metric)}, human has {len(human)} systems)")
    x = [float(metric[s]) for s in names]
    y = [float(human[s]) for s in names]
    return Correlation(_safe(stats.pearsonr, x, y), _safe(stats.spearmanr, x, y),
                       _safe(stats.kendalltau, x, y), names, tuple(y), tuple(x))


@dataclass(frozen=True)
class Window:
    """Correlation over systems ``start .. end`` (0-based, inclusive) of the human ordering."""

    start: int
    end: int
    systems: tuple[str, ...]
    pearson: float
    spearman: float
    kendall: float


def window_analysis(metric: Mapping[str, float], human: Mapping[str, float],
                    systems: Sequence[str] | None = None, window: int = 4) -> list[Window]:
    """Correlations over every window of ``window`` consecutive systems, sorted by human score
    (best first; equal human scores keep the given order)."""
    names = list(systems) if systems is not None else [s for s in human if s in metric]
    if window < 2:
        raise ConfigError(f"window must be at least 2 systems, got {window}")
    if window > len(names):
        raise ConfigError(f"window of {window} systems is larger than the {len(names)} systems")
    ordered = sorted(names, key=lambda s: -float(human[s]))
    out = []
    for i in range(len(ordered) - window + 1):
        part = ordered[i:i + window]
        c = correlate(metric, human, part)
        out.append(Window(i, i + window - 1, tuple(part), c.pearson, c.spearman, c.kendall))
    return out


def plot_windows(windows: Mapping[str, Sequence[Window]], path: str | Path,
                 title: str = "") -> None:
    """Plot Pearson and Spearman per window for one or more named series (needs matplotlib)."""
    from gecscope._optional import require

    matplotlib = require("matplotlib", "plot", "window plots")
    matplotlib.use("Agg")
    plt = require("matplotlib.pyplot", "plot", "window plots")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, kind in zip(axes, ("pearson", "spearman"), strict=True):
        for label, series in windows.items():
            xs = [w.start + 1 for w in series]
            ax.plot(xs, [getattr(w, kind) for w in series], marker="o", label=label)
        ax.set_title(kind.capitalize())
        ax.set_xlabel("window start (systems ranked by human score)")
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("correlation")
    axes[0].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(str(path))
    plt.close(fig)
