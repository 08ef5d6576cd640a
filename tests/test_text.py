"""The tests' own helper for texts that print floats (tests/_text.py)."""

from __future__ import annotations

import re

import pytest

from ._text import assert_text_close, split_numbers

REPORT = "gradients (numeric):  0.05792255416915639\nx[i]: 0.05792255 float64 [1.e-05 -0.5 inf nan] (0,)"


def test_split_numbers_keeps_the_words_and_the_numbers_as_printed():
    words, numbers = split_numbers(REPORT)
    assert words == "gradients (numeric):  {}\nx[i]: {} float64 [{} {} {} {}] ({},)"
    assert numbers == ["0.05792255416915639", "0.05792255", "1.e-05", "-0.5", "inf", "nan", "0"]


def test_numbers_pass_within_their_ulps_or_numpys_print_rounding():
    assert_text_close(REPORT, REPORT, max_ulp=0)
    one_ulp_up = REPORT.replace("0.05792255416915639", "0.057922554169156395")
    assert_text_close(one_ulp_up, REPORT, max_ulp=1)
    assert_text_close(
        REPORT.replace("0.05792255 ", "0.05792256 "), REPORT, max_ulp=0
    )  # printed to 8 decimals
    near = REPORT.replace("0.05792255416915639", "0.0579225541691566")  # 2.1e-16 away
    assert_text_close(near, REPORT, max_ulp=2, scale=1.0)  # 2 ulp of 1 is 4.4e-16


@pytest.mark.parametrize(
    "old, new, match",
    [
        ("0.05792255416915639", "0.0579225541691565", "number 0 of the text differs by 1.11e-16"),
        ("0.05792255 ", "0.05792257 ", "number 1 of the text differs by 2e-08"),
        ("-0.5", "0.5", "number 3 of the text differs by 1 "),
        ("nan]", "1.0]", "number 5 of the text differs by nan"),
        ("(numeric)", "(numerical)", "the texts differ outside their numbers"),
    ],
)
def test_other_numbers_or_words_fail(old, new, match):
    with pytest.raises(AssertionError, match=re.escape(match)):
        assert_text_close(REPORT.replace(old, new), REPORT, max_ulp=2)
