"""TensorFlow.js's basic concepts — tensors, variables, ops, models, memory — in tidytensor.

The tutorial's snippets, ported line by line (camelCase becomes snake_case). Each ``print``
shows what the tutorial's comment shows, in TF.js's own print format.

Run: ``python examples/tensor_basics.py``
"""

from __future__ import annotations

import tidytensor as tf

# --- Tensors ------------------------------------------------------------------------
# 2x3 tensor
shape = [2, 3]  # 2 rows, 3 columns
a = tf.tensor([1.0, 2.0, 3.0, 10.0, 20.0, 30.0], shape)
a.print()  # [[1 , 2 , 3 ], [10, 20, 30]]

# The shape can be inferred:
b = tf.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
b.print()

# tensor2d says the rank out loud:
c = tf.tensor2d([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
c.print()

# A 3x5 tensor of zeros
zeros = tf.zeros([3, 5])
zeros.print()

# --- Variables ----------------------------------------------------------------------
initial_values = tf.zeros([5])
biases = tf.variable(initial_values)  # initialize biases
biases.print()  # [0, 0, 0, 0, 0]

updated_values = tf.tensor1d([0, 1, 0, 1, 0])
biases.assign(updated_values)  # update the biases' values
biases.print()  # [0, 1, 0, 1, 0]

# --- Operations ---------------------------------------------------------------------
d = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
d_squared = d.square()
d_squared.print()  # [[1, 4 ], [9, 16]]

e = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
f = tf.tensor2d([[5.0, 6.0], [7.0, 8.0]])

e_plus_f = e.add(f)
e_plus_f.print()  # [[6 , 8 ], [10, 12]]

sq_sum = e.add(f).square()  # ops chain
sq_sum.print()  # [[36 , 64 ], [100, 144]]

# Every op is also in the main namespace:
sq_sum = tf.square(tf.add(e, f))
sq_sum.print()

# --- A model written with ops: y = 2x^2 + 4x + 8 ------------------------------------
a = tf.scalar(2)
b = tf.scalar(4)
c = tf.scalar(8)


def predict(input: float) -> tf.Tensor:
    # y = a * x ^ 2 + b * x + c
    def body() -> tf.Tensor:
        x = tf.scalar(input)
        ax2 = a.mul(x.square())
        bx = b.mul(x)
        y = ax2.add(bx).add(c)
        return y

    return tf.tidy(body)


# Predict the output for an input of 2
result = predict(2)
result.print()  # 24

# --- Memory: dispose ----------------------------------------------------------------
x = tf.tensor2d([[0.0, 2.0], [4.0, 6.0]])
x_squared = x.square()

x.dispose()
x_squared.dispose()


# --- Memory: tf.tidy ----------------------------------------------------------------
# tf.tidy takes a function to tidy up after
def average_body() -> tf.Tensor:
    # tf.tidy frees every tensor this function makes except the one it returns.
    # Even an expression this short makes intermediate tensors.
    y = tf.tensor1d([1.0, 2.0, 3.0, 4.0])
    z = tf.ones([4])
    return y.sub(z).square().mean()


average = tf.tidy(average_body)
average.print()  # 3.5

# tf.tidy does not clean up variables: dispose them by hand.
biases.dispose()

# Every tensor above that was made outside a tidy and never disposed is still alive:
print(f"# of tensors still alive: {tf.memory().num_tensors}")
