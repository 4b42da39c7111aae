"""The three-sentence CLEME example shared by the CLEME unit and CLI tests."""

# S1 "a b c d e f g": hyp a->A, c->X, e->Y; ref0 a->A, c->C, g->G; ref1 a->A2, c->X, g->G
#   dependent  ref0: TP(a) FP_ne(c) FP_un(e) FN(g) + 3 TN; ref1: FP_ne(a) TP(c) FP_un(e) FN(g) + 3 TN
#   independent:     TP(a) TP(c)    FP_un(e) FN(g) + 3 TN
# S2 "x y z": nobody edits -> 1 TN chunk
# S3 "p q r s": hyp q->Q; ref0 q->Q; ref1 noop
#   dependent ref0: TP + 2 TN; ref1: FP_un + 2 TN; independent: TP + 2 TN
REF_M2 = """S a b c d e f g
A 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0
A 2 3|||R:X|||C|||REQUIRED|||-NONE-|||0
A 6 7|||R:X|||G|||REQUIRED|||-NONE-|||0
A 0 1|||R:X|||A2|||REQUIRED|||-NONE-|||1
A 2 3|||R:X|||X|||REQUIRED|||-NONE-|||1
A 6 7|||R:X|||G|||REQUIRED|||-NONE-|||1

S x y z
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S p q r s
A 1 2|||R:X|||Q|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
"""
HYP_M2 = """S a b c d e f g
A 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0
A 2 3|||R:X|||X|||REQUIRED|||-NONE-|||0
A 4 5|||R:X|||Y|||REQUIRED|||-NONE-|||0

S x y z
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S p q r s
A 1 2|||R:X|||Q|||REQUIRED|||-NONE-|||0
"""
