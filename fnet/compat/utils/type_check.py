"""TEMPORARY"""
from ...errors import InvalidInputError
class InvalidType(InvalidInputError):
    def __init__(self, expect, actual, msg=None, *, function=None):
        self.expect, self.actual, self.msg = expect, actual, msg
        super().__init__(f"Expect: {expect}\nActual: {actual}")
    @classmethod
    def from_error(cls, e): return cls("", "", str(e))
def get_types(data, name, accept_none): return data
