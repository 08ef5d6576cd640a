"""'Type Checks': code samples, each with the error message the guide shows (None: it passes).

The guide's samples run where ``in_types`` describes two float32 arrays of shapes (3, 2, 2) and
(1, 2, 2), ``self.in_size`` is 4 (the guide's messages for it say "Actual: 3 != 4") and the
placeholder ``more_complicated_condition`` is a function that returns False.
"""

SIGNATURE = """
def check_type_forward(self, in_types):
    ...
"""

# (sample, message of the InvalidType it raises or None), in the guide's order.
SAMPLES = (
    ("x_type, y_type = in_types\n", None),
    ("utils.type_check.expect(x_type.ndim == 2)\n", "Expect: in_types[0].ndim == 2\nActual: 3 != 2"),
    ("utils.type_check.expect(x_type.shape[0] > 0)\n", None),
    (
        "utils.type_check.expect(x_type.dtype == np.float64)\n",
        "Expect: in_types[0].dtype == <class 'numpy.float64'>\nActual: float32 != <class 'numpy.float64'>",
    ),
    ("utils.type_check.expect(x_type.dtype.kind == 'f')\n", None),
    ("utils.type_check.expect(x_type.shape[1] == y_type.shape[1])\n", None),
    ("actual_type = x_type.eval()\n", None),
    (
        "utils.type_check.expect(x_type.shape[0] == y_type.shape[0] * 4)\n",
        "Expect: in_types[0].shape[0] == in_types[1].shape[0] * 4\nActual: 3 != 4",
    ),
    ('x_type.shape[0] == utils.type_check.Variable(self.in_size, "in_size")\n', None),
    ("x_type.shape[0] == self.in_size\n", None),
    (
        """\
sum = utils.type_check.Variable(np.sum, 'sum')
utils.type_check.expect(sum(x_type.shape) == 10)
""",
        "Expect: sum(in_types[0].shape) == 10\nActual: 7 != 10",
    ),
    (
        """\
x_shape = x_type.shape.eval() # get actual shape (int tuple)
if not more_complicated_condition(x_shape):
    expect_msg = 'Shape is expected to be ...'
    actual_msg = 'Shape is ...'
    raise utils.type_check.InvalidType(expect_msg, actual_msg)
""",
        "Expect: Shape is expected to be ...\nActual: Shape is ...",
    ),
    ("utils.type_check.expect(in_types.size() == 2)\n", None),
    ("x_type, y_type = in_types\n", None),
    (
        """\
utils.type_check.expect(
  in_types.size() == 2,
  in_types[0].ndim == 3,
)
""",
        None,
    ),
    (
        """\
utils.type_check.expect(
  x_type.dtype == np.float32,
  x_type.ndim == 3,
  x_type.shape[1] == 2,
)
""",
        None,
    ),
)

# The two conditions of the guide's literal blocks, as ``expect`` shows them failing.
IN_SIZE_MESSAGES = {
    "x_type.shape[0] == self.in_size": "Expect: in_types[0].shape[0] == 4\nActual: 3 != 4",
    'x_type.shape[0] == utils.type_check.Variable(self.in_size, "in_size")': (
        "Expect: in_types[0].shape[0] == in_size\nActual: 3 != 4"
    ),
}

# The guide's "typical type check example" where it belongs: a Function's check_type_forward
# (which the guide says runs just before forward).
TYPICAL_CHECK = """
class Typical(Function):
    def check_type_forward(self, in_types):
        utils.type_check.expect(in_types.size() == 2)
        x_type, y_type = in_types
        utils.type_check.expect(
          x_type.dtype == np.float32,
          x_type.ndim == 3,
          x_type.shape[1] == 2,
        )

    def forward(self, inputs):
        return inputs[0],
"""
