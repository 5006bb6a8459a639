# IPython kernel configuration for a Jupyter server that users reach from another
# machine: a JupyterHub, Binder, or a server behind an SSH tunnel.
#
# `%tensorboard` (notebook 06) shows TensorBoard in a frame at
# http://<page host>:6006/, which a remote browser cannot reach. TensorBoard's
# notebook module frames $TENSORBOARD_PROXY_URL instead when it is set, with
# %PORT% replaced by TensorBoard's port; jupyter-server-proxy (in
# requirements.txt) serves any local port at <server base URL>proxy/<port>/,
# behind the Jupyter server's own login. This file sets that variable in every
# kernel that starts on a JupyterHub (and Binder, which is one): the hub gives
# each user's server its base URL in $JUPYTERHUB_SERVICE_PREFIX, e.g. /user/ada/.
# Elsewhere it does nothing, so %tensorboard keeps framing port 6006 on a laptop.
#
# Install it by copying it to <python prefix>/etc/ipython/ipython_kernel_config.py
# of the environment the course's kernel runs in (binder/postBuild does this).
# A variable already set (e.g. TENSORBOARD_PROXY_URL=/proxy/%PORT%/ exported
# before `make lab` on a server used through an SSH tunnel) is left as it is.
import os

if os.environ.get("JUPYTERHUB_SERVICE_PREFIX"):
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"].rstrip("/") + "/"
    os.environ.setdefault("TENSORBOARD_PROXY_URL", prefix + "proxy/%PORT%/")
