"""UA-GEC's sizes as the ``ua-gec`` package's own API gives them (provenance of the sizes that
``tests/regression/test_uagec.py`` expects).

    python benchmarks/uagec_sizes.py

Only ``ua_gec.Corpus`` and its documents' ``doc_id``, ``meta.annotator_id`` and
``source_sentences`` are used, not gecscope's reader: per partition and annotation layer, the
items (one document as one annotator corrected it), the distinct documents, the documents
annotated by annotators 1 and 2, and the source sentences of those documents (counted once per
document, from annotator 1's copy) and of every document of annotator 1. With ua-gec 2.1.3:

========================  =====  =========  ============  ================  ==============
partition / layer         items  documents  by 1 and 2    their sentences   annotator 1's
========================  =====  =========  ============  ================  ==============
test / gec-only             332        166           166             2,696           2,696
test / gec-fluency          332        166           166             2,690           2,690
train / gec-only          1,749      1,706            43             1,269          31,037
========================  =====  =========  ============  ================  ==============
"""

from __future__ import annotations

from collections import defaultdict


def sizes(partition: str, layer: str) -> dict[str, int]:
    """The counts above for one partition and annotation layer, from ua_gec's API alone."""
    import ua_gec

    by_doc: dict[str, dict[int, int]] = defaultdict(dict)
    items = 0
    for doc in ua_gec.Corpus(partition=partition, annotation_layer=layer):
        items += 1
        by_doc[str(doc.doc_id)][int(doc.meta.annotator_id)] = len(doc.source_sentences)
    both = [d for d, annotators in by_doc.items() if {1, 2} <= set(annotators)]
    return {"items": items, "documents": len(by_doc), "by 1 and 2": len(both),
            "their sentences": sum(by_doc[d][1] for d in both),
            "annotator 1's": sum(a[1] for a in by_doc.values() if 1 in a)}


def main() -> None:
    import ua_gec

    print(f"ua-gec {ua_gec.__version__}")
    print("| partition / layer | items | documents | by 1 and 2 | their sentences | "
          "annotator 1's |")
    print("|---|---:|---:|---:|---:|---:|")
    for partition, layer in (("test", "gec-only"), ("test", "gec-fluency"),
                             ("train", "gec-only")):
        s = sizes(partition, layer)
        print(f"| {partition} / {layer} | " + " | ".join(f"{v:,}" for v in s.values()) + " |")


if __name__ == "__main__":
    main()
