"""The course CNN's default parameters, in one place for both of its forms.

Introduced in notebook 03 (``helpers.models.cnn_model_fn``, the Estimator form);
notebook 10's Keras form (``helpers.keras_migration.build_cnn``) uses the same
defaults. This module imports no TensorFlow, so the Keras form can use it on the
newest TensorFlow, which has no ``tf.estimator``.
"""

DEFAULT_PARAMS = {
    "learning_rate": 1e-3,
    "decay_steps": None,
    "filters": (32, 64),
    "dense_units": 128,
    "dropout": 0.25,
}
