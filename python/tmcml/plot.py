"""Result.plot: `tmcml plot`'s figure, drawn by the library itself
(tmcml_result_plot), so that the command and the package have one design
and one piece of code; matplotlib is needed only to show it in a window."""

import os
import tempfile

from . import _lib
from ._lib import lib
from .session import open_session


class Figure:
    """A figure written as a PNG: path (str; os.fspath works on it), data (the
    PNG's bytes), show().  Jupyter displays it inline (_repr_png_)."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<tmcml.Figure %s>" % self.path

    @property
    def data(self):
        with open(self.path, "rb") as f:
            return f.read()

    def _repr_png_(self):
        return self.data

    def show(self):
        """Shows the PNG in a matplotlib window, else in the desktop's image
        viewer (webbrowser)."""
        try:
            import matplotlib.image
            import matplotlib.pyplot as plt
        except ImportError:
            import webbrowser

            webbrowser.open("file://" + os.path.abspath(self.path))
            return
        image = matplotlib.image.imread(self.path)
        dpi = 100.0
        fig = plt.figure(figsize=(image.shape[1] / dpi, image.shape[0] / dpi), dpi=dpi)
        fig.figimage(image)
        plt.show()


def plot_result(result, path=None, show=False, name=None):
    if lib.tmcml_result_plot is None:
        raise _lib.TmcmlError("Result.plot: %s predates tmcml_result_plot (TMCML_1.1): use a "
                              "newer libtmcml, or save_mco() and `tmcml plot`" % _lib.path)
    if path is None:
        fd, path = tempfile.mkstemp(prefix="tmcml-", suffix=".png")
        os.close(fd)
    open_session(result._session).call(lib.tmcml_result_plot, result._handle,
                                       _lib.encode_path(path),
                                       None if name is None else name.encode("utf-8"))
    figure = Figure(path)
    if show:
        figure.show()
    return figure
