"""pytest settings for the unit tests."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts TensorFlow in a subprocess (about 10 s)")
