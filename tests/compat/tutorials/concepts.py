"""'Concepts Walkthrough': variables and derivatives, higher-order derivatives, links (doctests)."""

# Per sample, the examples whose printed value is drawn at random (a new link's weights). Chainer
# prints the seed's values after ``np.random.seed(0)``; fnet's initializers draw other numbers.
RANDOM_OUTPUTS = {"LINEAR_PARAMS": ("f.W.array",), "LINEAR_CALL": ("y.array",)}

VARIABLES = """
>>> x_data = np.array([5], dtype=np.float32)
>>> x = Variable(x_data)

>>> y = x**2 - 2 * x + 1

>>> y.array
array([16.], dtype=float32)

>>> y.backward()

>>> x.grad
array([8.], dtype=float32)
"""

RETAIN_GRAD = """
>>> z = 2*x
>>> y = x**2 - z + 1
>>> y.backward(retain_grad=True)
>>> z.grad
array([-1.], dtype=float32)
"""

MULTI_ELEMENT = """
>>> x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
>>> y = x**2 - 2*x + 1
>>> y.grad = np.ones((2, 3), dtype=np.float32)
>>> y.backward()
>>> x.grad
array([[ 0.,  2.,  4.],
       [ 6.,  8., 10.]], dtype=float32)
"""

FIRST_ORDER = """
>>> x = chainer.Variable(np.array([[0, 2, 3], [4, 5, 6]], dtype=np.float32))
>>> y = x ** 3
>>> y.grad = np.ones((2, 3), dtype=np.float32)
>>> y.backward(enable_double_backprop=True)
>>> x.grad_var
variable([[  0.,  12.,  27.],
          [ 48.,  75., 108.]])
>>> assert x.grad_var.array is x.grad
>>> assert (x.grad == (3 * x**2).array).all()
"""

SECOND_ORDER = """
>>> gx = x.grad_var
>>> x.cleargrad()
>>> gx.grad = np.ones((2, 3), dtype=np.float32)
>>> gx.backward()
>>> x.grad
array([[ 0., 12., 18.],
       [24., 30., 36.]], dtype=float32)
>>> assert (x.grad == (6 * x).array).all()
"""

LINEAR = """
>>> f = L.Linear(3, 2)
"""

LINEAR_PARAMS = """
>>> f.W.array
array([[ 1.0184761 ,  0.23103087,  0.5650746 ],
       [ 1.2937803 ,  1.0782351 , -0.56423163]], dtype=float32)
>>> f.b.array
array([0., 0.], dtype=float32)
"""

LINEAR_CALL = """
>>> x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
>>> y = f(x)
>>> y.array
array([[3.1757617, 1.7575557],
       [8.619507 , 7.1809077]], dtype=float32)
"""

# In a note, as a literal block: the guide does not run it in sequence with the other samples
# (the next ones still use the Linear(3, 2) link).
LINEAR_LAZY = """
>>> f = L.Linear(2)
"""

LINEAR_CLEARGRADS = """
>>> f.cleargrads()
"""

LINEAR_GRADS = """
>>> y.grad = np.ones((2, 2), dtype=np.float32)
>>> y.backward()
>>> f.W.grad
array([[5., 7., 9.],
       [5., 7., 9.]], dtype=float32)
>>> f.b.grad
array([2., 2.], dtype=float32)
"""
