"""Annotator-aware aggregation: latent-class models of who labels how well.

Dawid–Skene fits one confusion matrix per annotator by EM and returns, for
every item, a posterior distribution over its true label: soft labels that
weigh reliable annotators more (``posterior.soft_labels(ann,
method="dawid_skene")``), and a reliability table per annotator.

Examples
--------
>>> import pandas as pd
>>> from dissensus import Annotations
>>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": ["a", "b", "c"] * 2,
...                    "label": ["x", "x", "y", "y", "y", "y"]})
>>> fit = dawid_skene(Annotations.from_frame(df))
>>> fit.labels.tolist()
['x', 'y']
"""

from dissensus.aggregation._dawid_skene import ConvergenceWarning, DawidSkeneResult, dawid_skene

__all__ = ["ConvergenceWarning", "DawidSkeneResult", "dawid_skene"]
