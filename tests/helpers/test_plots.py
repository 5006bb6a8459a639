"""``helpers.plots``: the figures notebooks 06 and 07 draw, checked without looking at pixels."""

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from helpers import plots  # noqa: E402
from helpers.problems import UsageProblem  # noqa: E402

LOOK_FOR_A_CHINESE_FONT = plots.chinese_font.__wrapped__  # before the fixture below replaces it

TABLE = pd.DataFrame(
    [(".", "loss", step, 2.0 / step) for step in range(1, 300, 10)]
    + [("eval", "loss", step, 1.0 / step) for step in (100, 200, 300)]
    + [("eval", "accuracy", step, 0.9 + step / 10_000) for step in (100, 200, 300)],
    columns=["run", "tag", "step", "value"],
)


def teardown_function():
    plt.close("all")


@pytest.fixture(autouse=True)
def no_chinese_font(monkeypatch):
    """Every machine alike: no Chinese font, and its line already said (tests below change it)."""
    monkeypatch.setattr(plots, "chinese_font", lambda: None)
    monkeypatch.setattr(plots, "_SAID_NO_FONT", [True])


def test_curves_draws_one_panel_per_entry_with_its_lines():
    figure = plots.curves(
        TABLE,
        {
            "loss": {"training": (".", "loss"), "test": ("eval", "loss")},
            "accuracy": {"test": ("eval", "accuracy")},
        },
        title="Curves",
    )
    loss_axis, accuracy_axis = figure.axes
    assert loss_axis.get_title() == "loss" and accuracy_axis.get_title() == "accuracy"
    assert loss_axis.get_xlabel() == "global step" and loss_axis.get_ylabel() == "loss"
    training, test = loss_axis.get_lines()
    assert list(training.get_xdata()) == list(range(1, 300, 10))
    assert training.get_marker() == "None"  # many points: a plain line
    assert list(test.get_xdata()) == [100, 200, 300] and test.get_marker() == "o"
    legend = loss_axis.get_legend().get_texts()
    assert [text.get_text() for text in legend] == ["training", "test"]
    assert {text.get_fontsize() for text in legend} == {8}  # small, not to hide the curves
    assert figure._suptitle.get_text() == "Curves"
    # 5.2 inches wide per panel, whatever their number, 3.6 high
    assert tuple(figure.get_size_inches()) == pytest.approx((2 * 5.2, 3.6))


def test_curves_mark_the_points_of_a_series_of_up_to_20_evaluations():
    table = pd.DataFrame(
        [("twenty", "loss", step, 1.0) for step in range(20)]
        + [("many", "loss", step, 2.0) for step in range(21)],
        columns=["run", "tag", "step", "value"],
    )
    figure = plots.curves(table, {"loss": {"20": ("twenty", "loss"), "21": ("many", "loss")}})
    twenty, many = figure.axes[0].get_lines()
    assert twenty.get_marker() == "o" and many.get_marker() == "None"


def test_curves_names_a_missing_series():
    expected = r"no scalar 'f1' in run 'eval' \(its tags: \['accuracy', 'loss'\]\): name one"
    with pytest.raises(UsageProblem, match=expected):
        plots.curves(TABLE, {"f1": {"test": ("eval", "f1")}})


def test_confusion_matrix_writes_every_nonzero_count():
    matrix = np.array([[980, 0, 3], [1, 1130, 0], [12, 4, 1001]])
    figure = plots.confusion_matrix(matrix, title="Test set")
    axis = figure.axes[0]
    texts = {
        (round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in axis.texts
    }
    assert texts == {(r, c): str(matrix[r, c]) for r in range(3) for c in range(3) if matrix[r, c]}
    assert axis.get_xlabel() == "predicted class" and axis.get_ylabel() == "true class"
    assert axis.get_title() == "Test set"
    assert [t.get_text() for t in axis.get_xticklabels()] == ["0", "1", "2"]
    # large counts in white on dark cells, small ones in black
    colours = {t.get_text(): t.get_color() for t in axis.texts}
    assert colours["1130"] == "white" and colours["3"] == "black"


def test_confusion_matrix_of_ten_classes_colours_counts_on_a_log_scale_with_a_bar_beside_it():
    matrix = np.diag(np.full(10, 100))
    matrix[1, 7], matrix[4, 9] = 10, 1
    figure = plots.confusion_matrix(matrix)
    axis, bar = figure.axes
    assert axis.get_title() == "Confusion matrix"  # the default title
    assert tuple(figure.get_size_inches()) == pytest.approx((0.55 * 10 + 2.2, 0.55 * 10 + 1.6))
    image = axis.images[0]
    assert (image.get_array().mask == (matrix == 0)).all()  # every count coloured, zeros blank
    assert image.get_clim() == (1, 100)  # from one example to the largest count
    assert bar.get_ylabel() == "examples (log scale)"
    assert [t.get_text() for t in bar.get_yticklabels()] == ["1", "10", "100"]
    colours = {
        (round(t.get_position()[1]), round(t.get_position()[0])): t.get_color() for t in axis.texts
    }
    # white on the darker half of the log scale only: 10 is its middle, still black
    assert colours[0, 0] == "white" and colours[1, 7] == colours[4, 9] == "black"
    assert {t.get_fontsize() for t in axis.texts} == {7}  # four digits fit in a cell
    # the bar as tall as the matrix, right beside it
    axis.apply_aspect()
    bar.apply_aspect()
    matrix_box, bar_box = axis.get_position(), bar.get_position()
    assert bar_box.height == pytest.approx(matrix_box.height, abs=0.02)
    assert 0 < bar_box.x0 - matrix_box.x1 < 0.05


def test_confusion_matrix_float_counts_and_class_names():
    figure = plots.confusion_matrix(np.array([[5.0, 1.0], [0.0, 4.0]]), class_names=["cat", "dog"])
    axis = figure.axes[0]
    assert sorted(t.get_text() for t in axis.texts) == ["1", "4", "5"]
    assert [t.get_text() for t in axis.get_yticklabels()] == ["cat", "dog"]


def test_confusion_matrix_refuses_a_non_square_array():
    with pytest.raises(ValueError, match="square"):
        plots.confusion_matrix(np.zeros((2, 3)))


def test_stopping_timeline_marks_best_stop_and_min_steps():
    values = {200: 0.97, 400: 0.98, 600: 0.985, 800: 0.984, 1000: 0.983}
    figure = plots.stopping_timeline(
        values, "f1_macro", best=600, stop=1001, patience=400, min_steps=300, max_steps=1500
    )
    axis = figure.axes[0]
    assert (
        axis.get_xlabel() == "global step" and axis.get_ylabel() == "f1_macro" and axis.get_title()
    )
    legend = axis.get_legend()
    labels = [text.get_text() for text in legend.get_texts()]
    assert any("best: step 600" in label for label in labels)
    assert any("stopped: step 1001" in label for label in labels)
    assert any("min_steps = 300" in label for label in labels)
    assert {text.get_fontsize() for text in legend.get_texts()} == {8}
    evaluations, best, stop, max_steps = axis.get_lines()
    assert evaluations.get_xydata().tolist() == [list(item) for item in values.items()]
    assert evaluations.get_marker() == "o"  # each evaluation a point
    assert best.get_xydata().tolist() == [[600, 0.985]] and best.get_marker() == "*"
    assert list(stop.get_xdata()) == [1001, 1001]
    assert list(max_steps.get_xdata()) == [1500, 1500] and max_steps.get_linestyle() == ":"
    ignored, patience = axis.patches
    assert (ignored.get_x(), ignored.get_width()) == (0, 300)
    assert (patience.get_x(), patience.get_width()) == (600, 400)  # from the best on
    assert axis.get_xlim() == pytest.approx((0, 1500 * 1.02))  # from 0 to just past max_steps
    assert tuple(figure.get_size_inches()) == (10, 4)
    # the legend beside the plot, top-aligned with it, inside the figure
    renderer = figure.canvas.get_renderer()
    box, plot = legend.get_window_extent(renderer), axis.get_window_extent(renderer)
    assert 0 < box.x0 - plot.x1 < 0.03 * figure.bbox.width
    assert box.y1 == pytest.approx(plot.y1, abs=0.03 * figure.bbox.height)
    assert figure.bbox.x1 >= box.x1


def test_stopping_timeline_without_patience_min_steps_nor_max_steps():
    figure = plots.stopping_timeline({100: 0.5, 200: 0.4, 300: 0.45}, "loss", best=200, stop=300)
    axis = figure.axes[0]
    assert axis.get_title() == "Evaluations of loss, and where the hook stopped training"
    assert [text.get_text() for text in axis.get_legend().get_texts()] == [
        "loss at each evaluation",
        "best: step 200",
        "training stopped: step 300",
    ]
    assert not axis.patches
    assert axis.get_xlim() == pytest.approx((0, 300 * 1.02))


def _shown(axis):
    """The image an axis shows, with its colour limits and title ("" when none)."""
    image = axis.get_images()[0]
    return image.get_array(), image.get_clim(), image.get_cmap().name, axis.get_title()


def test_image_grid_shows_the_first_rows_times_columns_images_captioned_by_label():
    images = np.arange(30 * 784, dtype=np.float64).reshape(30, 784) % 256  # raw bytes, flat
    labels = np.arange(30) % 10
    figure = plots.image_grid(images, labels, class_names=list("abcdefghij"), title="Digits")
    axes = figure.axes
    assert len(axes) == 24  # 3 rows of 8 by default
    assert tuple(figure.get_size_inches()) == pytest.approx((8 * 1.1, 3 * 1.3))
    array, clim, cmap, caption = _shown(axes[5])
    assert array.shape == (28, 28) and (array == images[5].reshape(28, 28)).all()
    assert clim == (0, 255) and cmap == "gray_r" and caption == "f"
    assert axes[5].title.get_fontsize() == 8  # small enough for a 1.1-inch panel
    assert all(not axis.axison for axis in axes)  # no ticks nor frames
    assert figure._suptitle.get_text() == "Digits"
    plt.close(figure)


def test_image_grid_of_fewer_images_scaled_to_1_leaves_the_rest_empty():
    images = np.full((3, 28, 28), 0.5)
    figure = plots.image_grid(
        images, labels=[7, 1, 2], rows=2, columns=2, captions=["seven", "one", "two"]
    )
    axes = figure.axes
    assert len(axes) == 4 and not axes[3].get_images()
    array, clim, _, caption = _shown(axes[0])
    assert clim == (0, 1.0) and caption == "seven"  # captions before labels
    assert axes[0].title.get_fontsize() == 8
    assert figure._suptitle is None
    plt.close(figure)
    figure = plots.image_grid(np.ones((2, 28, 28)), labels=[3, 4], rows=1, columns=2)
    assert [axis.get_title() for axis in figure.axes] == ["3", "4"]
    assert _shown(figure.axes[0])[1] == (0, 1.0)  # 1 itself is still a scaled image
    plt.close(figure)
    figure = plots.image_grid(np.ones((1, 28, 28)), rows=1, columns=1)
    assert figure.axes[0].get_title() == ""
    plt.close(figure)
    faint = np.zeros((1, 28, 28), dtype=np.uint8)
    faint[0, 10:18, 10:18] = 2  # raw bytes, all of them dark
    figure = plots.image_grid(faint, rows=1, columns=1)
    assert _shown(figure.axes[0])[1] == (0, 255)  # above 1: bytes, not a scaled image
    plt.close(figure)


# --- the Chinese caption under each figure (zh-TW edition) ---------------------------------------

FIGURES = {
    "image_grid": lambda: plots.image_grid(np.ones((4, 28, 28)), [1, 2, 3, 4], rows=1, columns=4),
    "curves": lambda: plots.curves(TABLE, {"loss": {"test": ("eval", "loss")}}, title="Curves"),
    "confusion_matrix": lambda: plots.confusion_matrix(np.eye(3), title="Test set"),
    "stopping_timeline": lambda: plots.stopping_timeline(
        {200: 0.9, 400: 0.95, 600: 0.94}, "f1_macro", best=400, stop=601, patience=200
    ),
}


@pytest.mark.parametrize("name", FIGURES)
def test_in_english_a_figure_prints_nothing(name, monkeypatch, capsys):
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")
    FIGURES[name]()
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", FIGURES)
def test_in_zh_tw_a_figure_prints_one_chinese_line(name, zh_tw, capsys):
    zh_tw()
    FIGURES[name]()
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and re.search("[\u4e00-\u9fff]", out)
    # no English sentence but the figure's own title, quoted
    assert not re.search(r"[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}", re.sub("「[^」]*」", "", out)), out


def test_the_captions_say_what_the_figures_show(zh_tw, capsys):
    zh_tw()
    FIGURES["stopping_timeline"]()
    assert capsys.readouterr().out == (
        "圖：「Evaluations of f1_macro, and where the hook stopped training」。x 軸是全域步數，"
        "y 軸是 f1_macro：藍點是每次評估的 f1_macro，綠色星號是最佳值，"
        "在第 400 步，紅線是訓練停止的步數 601。"
        "綠色區域是耐心值（patience）：最佳值之後的 200 步。\n"
    )
    plots.curves(
        TABLE,
        {
            "loss": {"training": (".", "loss"), "test": ("eval", "loss")},
            "accuracy": {"test": ("eval", "accuracy")},
        },
        xlabel="epoch",
    )
    assert capsys.readouterr().out == (
        "第 1 張子圖「loss」：x 軸是 epoch，y 軸是 loss；線條：training、test。"
        "第 2 張子圖「accuracy」：x 軸是 epoch，y 軸是 accuracy；線條：test。\n"
    )
    plots.image_grid(np.ones((2, 28, 28)), rows=1, columns=3, captions=["a", "b"], title="T.")
    assert capsys.readouterr().out == (
        "圖：「T」。2 張 28 × 28 像素的影像，每張上方是程式碼給它的說明文字。\n"
    )


def test_in_ipython_the_caption_waits_for_the_figures_at_the_end_of_the_cell(
    zh_tw, monkeypatch, capsys
):
    """The inline backend shows a cell's figures in its post_execute event: the caption comes
    after it, once per figure, and the event is registered once."""
    zh_tw()
    registered = []

    class Events:
        def register(self, event, callback):
            registered.append((event, callback))

    class Shell:
        events = Events()

    shell = Shell()
    monkeypatch.setattr(plots, "_shell", lambda: shell)
    monkeypatch.setattr(plots, "_REGISTERED", [])
    FIGURES["confusion_matrix"]()
    FIGURES["image_grid"]()
    assert capsys.readouterr().out == ""  # not above the figures
    assert len(registered) == 1 and registered[0][0] == "post_execute"
    registered[0][1]()  # the cell ends
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("圖：「Test set」。每一列是一個真實類別")
    assert lines[1].startswith("4 張 28 × 28 像素的影像")
    registered[0][1]()  # the next cell: nothing left
    assert capsys.readouterr().out == ""


# --- the figures' own text in zh-TW: Chinese where a Chinese font draws it -----------------------


def _timeline_texts(figure) -> list:
    axis = figure.axes[0]
    legend = [text.get_text() for text in axis.get_legend().get_texts()]
    return [axis.get_title(), axis.get_xlabel(), *legend]


@pytest.mark.filterwarnings("ignore:Glyph")  # DejaVu Sans stands in: it has no Chinese glyphs
def test_with_a_chinese_font_the_timeline_s_own_text_is_chinese(zh_tw, monkeypatch, capsys):
    zh_tw()
    monkeypatch.setattr(plots, "chinese_font", lambda: "DejaVu Sans")  # a font this machine has
    figure = plots.stopping_timeline(
        {200: 0.9, 400: 0.95, 600: 0.94},
        "f1_macro",
        best=400,
        stop=601,
        patience=200,
        min_steps=100,
    )
    texts = _timeline_texts(figure)
    assert all(re.search("[\u4e00-\u9fff]", text) for text in texts), texts
    assert "601" in " ".join(texts) and "min_steps = 100" in " ".join(texts)
    # the font is the text's own, not looked up when the figure is drawn, after the cell
    assert figure.axes[0].get_legend().get_texts()[0].get_fontfamily()[0] == "DejaVu Sans"
    assert plt.rcParams["font.family"] == ["sans-serif"]
    assert "沒有繁體中文字型" not in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:Glyph")
def test_drawing_in_chinese_logs_no_missing_font(zh_tw, monkeypatch, caplog):
    # a font list naming fonts the machine lacks makes matplotlib log one line per missing font
    # for every text it draws: a wall of "findfont: Font family ... not found" under the figure
    zh_tw()
    monkeypatch.setattr(plots, "chinese_font", lambda: "DejaVu Sans")
    figure = FIGURES["stopping_timeline"]()
    with caplog.at_level("INFO", logger="matplotlib.font_manager"):
        figure.canvas.draw()
    assert not [record for record in caplog.records if "not found" in record.getMessage()]


def test_without_a_chinese_font_the_text_stays_english_and_one_line_names_a_font(
    zh_tw, monkeypatch, capsys
):
    zh_tw()
    monkeypatch.setattr(plots, "_SAID_NO_FONT", [])
    figure = FIGURES["stopping_timeline"]()
    assert _timeline_texts(figure)[1:] == [
        "global step",
        "patience: 200 steps after the best",
        "f1_macro at each evaluation",
        "best: step 400",
        "training stopped: step 601",
    ]
    first, caption = capsys.readouterr().out.splitlines()
    assert first.startswith("這台電腦沒有繁體中文字型") and "Noto Sans CJK TC" in first
    assert caption.startswith("圖：")
    FIGURES["confusion_matrix"]()
    assert "字型" not in capsys.readouterr().out  # once a kernel


def _fonts_known(monkeypatch, *names):
    """matplotlib's list of fonts as if it held only ``names`` (each a stand-in file)."""
    from matplotlib import font_manager

    entries = [font_manager.FontEntry(fname=f"/fonts/{n}.otf", name=n) for n in names]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", entries)
    return font_manager


def test_linux_s_noto_cjk_collection_counts_as_a_chinese_font(monkeypatch):
    # matplotlib before 3.11 names fonts-noto-cjk's .ttc by its first face, the Japanese one
    _fonts_known(monkeypatch, "DejaVu Sans", "Noto Sans CJK JP")
    assert LOOK_FOR_A_CHINESE_FONT() == "Noto Sans CJK JP"
    _fonts_known(monkeypatch, "Noto Sans CJK JP", "Noto Sans CJK TC")
    assert LOOK_FOR_A_CHINESE_FONT() == "Noto Sans CJK TC"  # the Taiwanese face first


def test_a_font_installed_after_matplotlib_listed_its_fonts_is_found(monkeypatch):
    # matplotlib keeps the font list of its first run: the learner installs a font, restarts
    # the kernel, and the list still lacks it
    font_manager = _fonts_known(monkeypatch, "DejaVu Sans")
    installed = str(Path(matplotlib.get_data_path(), "fonts/ttf/DejaVuSansMono.ttf"))
    unreadable = "/fonts/broken.ttf"
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda: [installed, unreadable])
    monkeypatch.setattr(plots, "CHINESE_FONTS", ("Noto Sans CJK TC", "DejaVu Sans Mono"))
    assert LOOK_FOR_A_CHINESE_FONT() == "DejaVu Sans Mono"
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda: [unreadable])
    _fonts_known(monkeypatch, "DejaVu Sans")
    assert LOOK_FOR_A_CHINESE_FONT() is None


def test_in_english_the_figures_own_text_is_english_whatever_the_fonts(monkeypatch):
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")
    monkeypatch.setattr(plots, "chinese_font", lambda: "DejaVu Sans")
    figure = plots.confusion_matrix(np.eye(3))
    assert figure.axes[0].get_title() == "Confusion matrix"
    assert figure.axes[0].get_xlabel() == "predicted class"
