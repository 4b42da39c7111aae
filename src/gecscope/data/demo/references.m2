S I has went to the shop yesterday and buyed two apple .
A 1 2|||U:VERB:TENSE||||||REQUIRED|||-NONE-|||0
A 8 9|||R:VERB:INFL|||bought|||REQUIRED|||-NONE-|||0
A 10 11|||R:NOUN:NUM|||apples|||REQUIRED|||-NONE-|||0
A 1 2|||U:VERB:TENSE||||||REQUIRED|||-NONE-|||1
A 8 9|||R:VERB:INFL|||bought|||REQUIRED|||-NONE-|||1
A 10 11|||R:NOUN:NUM|||apples|||REQUIRED|||-NONE-|||1

S She don't like to playing football in the rain .
A 1 2|||R:ADV|||doesn't|||REQUIRED|||-NONE-|||0
A 3 4|||U:PREP||||||REQUIRED|||-NONE-|||0
A 1 2|||R:OTHER|||does not|||REQUIRED|||-NONE-|||1
A 4 5|||R:VERB:FORM|||play|||REQUIRED|||-NONE-|||1

S My brother have many informations about computer .
A 2 3|||R:VERB:SVA|||has|||REQUIRED|||-NONE-|||0
A 3 4|||R:OTHER|||a lot of|||REQUIRED|||-NONE-|||0
A 4 5|||R:NOUN:INFL|||information|||REQUIRED|||-NONE-|||0
A 6 7|||R:NOUN:NUM|||computers|||REQUIRED|||-NONE-|||0
A 2 3|||R:VERB:SVA|||has|||REQUIRED|||-NONE-|||1
A 3 4|||R:ADJ|||much|||REQUIRED|||-NONE-|||1
A 4 5|||R:NOUN:INFL|||information|||REQUIRED|||-NONE-|||1
A 6 7|||R:NOUN:NUM|||computers|||REQUIRED|||-NONE-|||1

S When I was child , I live in a small village near the sea .
A 3 3|||M:DET|||a|||REQUIRED|||-NONE-|||0
A 6 7|||R:VERB:TENSE|||lived|||REQUIRED|||-NONE-|||0
A 3 3|||M:DET|||a|||REQUIRED|||-NONE-|||1
A 6 7|||R:VERB:TENSE|||lived|||REQUIRED|||-NONE-|||1

S People should to think about environment more careful .
A 2 3|||U:VERB:FORM||||||REQUIRED|||-NONE-|||0
A 5 5|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 7 8|||R:MORPH|||carefully|||REQUIRED|||-NONE-|||0
A 2 3|||U:VERB:FORM||||||REQUIRED|||-NONE-|||1
A 5 5|||M:DET|||the|||REQUIRED|||-NONE-|||1
A 7 8|||R:MORPH|||carefully|||REQUIRED|||-NONE-|||1

S He is very interesting in learn English since two years .
A 1 2|||R:VERB:TENSE|||has been|||REQUIRED|||-NONE-|||0
A 3 4|||R:MORPH|||interested|||REQUIRED|||-NONE-|||0
A 5 6|||R:VERB:FORM|||learning|||REQUIRED|||-NONE-|||0
A 7 8|||R:PREP|||for|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||has been|||REQUIRED|||-NONE-|||1
A 3 4|||R:MORPH|||interested|||REQUIRED|||-NONE-|||1
A 5 6|||R:VERB:FORM|||learning|||REQUIRED|||-NONE-|||1
A 7 8|||R:PREP|||for|||REQUIRED|||-NONE-|||1

S There is many reason why student choose to study abroad .
A 1 2|||R:VERB:SVA|||are|||REQUIRED|||-NONE-|||0
A 3 4|||R:NOUN:NUM|||reasons|||REQUIRED|||-NONE-|||0
A 5 6|||R:NOUN:NUM|||students|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||are|||REQUIRED|||-NONE-|||1
A 3 4|||R:NOUN:NUM|||reasons|||REQUIRED|||-NONE-|||1
A 5 6|||R:NOUN:NUM|||students|||REQUIRED|||-NONE-|||1

S The weather in my country are usually hot on summer .
A 5 6|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0
A 8 9|||R:PREP|||in|||REQUIRED|||-NONE-|||0
A 5 6|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||1
A 8 9|||R:PREP|||in|||REQUIRED|||-NONE-|||1

S I am agree with the opinion that technology make our life easier .
A 1 2|||U:VERB:TENSE||||||REQUIRED|||-NONE-|||0
A 8 9|||R:VERB:SVA|||makes|||REQUIRED|||-NONE-|||0
A 1 2|||U:VERB:TENSE||||||REQUIRED|||-NONE-|||1
A 8 9|||R:VERB:SVA|||makes|||REQUIRED|||-NONE-|||1
A 10 11|||R:NOUN:NUM|||lives|||REQUIRED|||-NONE-|||1

S Yesterday I meet my friend and we talk about our plan for holiday .
A 2 3|||R:VERB:TENSE|||met|||REQUIRED|||-NONE-|||0
A 7 8|||R:VERB:TENSE|||talked|||REQUIRED|||-NONE-|||0
A 10 11|||R:NOUN:NUM|||plans|||REQUIRED|||-NONE-|||0
A 12 12|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 2 3|||R:VERB:TENSE|||met|||REQUIRED|||-NONE-|||1
A 7 8|||R:VERB:TENSE|||talked|||REQUIRED|||-NONE-|||1
A 10 12|||U:OTHER||||||REQUIRED|||-NONE-|||1
A 13 13|||M:NOUN|||plans|||REQUIRED|||-NONE-|||1

S This book is more better than the one I read last week .
A 3 4|||U:ADV||||||REQUIRED|||-NONE-|||0
A 3 4|||R:ADV|||much|||REQUIRED|||-NONE-|||1

S Everyone have their own way to relax after a long day .
A 1 2|||R:VERB:SVA|||has|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||has|||REQUIRED|||-NONE-|||1

