"""The course CNN's default parameters (notebook 03).

Shared by its Estimator form (``models``) and its Keras form (notebook 10); imports no TensorFlow,
so the Keras form runs on the newest TensorFlow too.
"""

DEFAULT_PARAMS = {
    "learning_rate": 1e-3,
    "decay_steps": None,
    "filters": (32, 64),
    "dense_units": 128,
    "dropout": 0.25,
}
