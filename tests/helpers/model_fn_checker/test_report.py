"""What the learner reads of a model_fn check: each branch's row of the table, the headline, the
text and the HTML of the report, and the comparison of the branches' variables; and the same
report for a zh-TW learner, in Chinese.

Everything here is built from ``Branch`` and ``Finding`` values, as ``check_model_fn`` fills
them, without building a graph: the report's own logic, fast.
"""

import pandas as pd

from helpers.language import _
from helpers.model_fn_checker import (
    Branch,
    Finding,
    ModelFnReport,
    _differences,
    _listed,
    _twice,
    _with_shapes,
    check_signature,
    check_variables,
)

DENSE = {"dense/kernel": (784, 10), "dense/bias": (10,)}


def _report(findings=(), warnings=(), **branches) -> ModelFnReport:
    report = ModelFnReport("model_fn", 4, list(findings), list(warnings))
    report.branches.update(branches)
    return report


# --------------------------------------------------------------------------- the table's rows


def test_a_branch_that_was_not_built_shows_only_what_it_returned():
    assert Branch("TRAIN", returned="raised ValueError").row() == {"returned": "raised ValueError"}


def test_a_predict_row_lists_the_predictions_and_export_outputs_and_dashes_the_rest():
    branch = Branch(
        "PREDICT",
        built=True,
        returned="EstimatorSpec",
        predictions={"classes": (4,), "probabilities": (4, 10)},
        export_outputs=("predict", "serving_default"),
    )
    assert branch.row() == {
        "returned": "EstimatorSpec",
        "predictions": "classes (4,), probabilities (4, 10)",
        "export_outputs": "predict, serving_default",
        "loss": "-",
        "eval_metric_ops": "-",
        "train_op": "-",
    }


def test_an_eval_row_shows_a_scalar_loss_and_the_metrics():
    branch = Branch(
        "EVAL",
        built=True,
        returned="EstimatorSpec",
        loss_shape=(),
        metrics={"accuracy": (), "per_class": (10,)},
    )
    row = branch.row()
    assert (row["predictions"], row["export_outputs"], row["train_op"]) == ("-", "-", "-")
    assert row["loss"] == "scalar"
    assert row["eval_metric_ops"] == "accuracy scalar, per_class (10,)"


def test_a_train_row_says_whether_the_train_op_ran_and_how_the_step_moved():
    not_run = Branch("TRAIN", built=True, loss_shape=(4,), train_op=True)
    assert not_run.row()["train_op"] == "yes, not run"  # running the train_op failed
    assert not_run.row()["loss"] == "(4,)"  # a loss per example, named by the findings
    ran = Branch("TRAIN", built=True, loss_shape=(), train_op=True, global_step=(0, 2))
    assert ran.row()["train_op"] == "yes, global step 0 → 2"


def test_the_table_has_a_row_per_branch_and_dashes_for_a_branch_not_built():
    report = _report(
        PREDICT=Branch(
            "PREDICT", built=True, returned="EstimatorSpec", predictions={"classes": (4,)}
        ),
        TRAIN=Branch("TRAIN", returned="not built (no labels parameter)"),
    )
    table = report.table()
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == [
        "returned",
        "predictions",
        "export_outputs",
        "loss",
        "eval_metric_ops",
        "train_op",
    ]
    assert table.index.name == "mode" and list(table.index) == ["PREDICT", "TRAIN"]
    assert table.loc["TRAIN"].tolist() == ["not built (no labels parameter)"] + ["-"] * 5


# --------------------------------------------------------------------------- headline, text, HTML


def test_the_headline_counts_problems_and_warnings_in_words():
    assert _report().headline() == (
        "model_fn check of model_fn on a batch of 4: OK: Estimator can train, evaluate and "
        "predict with it"
    )
    one = _report([Finding("TRAIN", "a")], [Finding("EVAL", "b")])
    assert one.headline().endswith(": 1 problem to fix (1 warning)")
    two = _report([Finding("TRAIN", "a")] * 2, [Finding("EVAL", "b")] * 2)
    assert two.headline().endswith(": 2 problems to fix (2 warnings)")
    warned = _report(warnings=[Finding("EVAL", "b")])
    assert warned.ok and warned.headline().endswith("predict with it (1 warning)")


def test_the_headline_counts_the_trainable_parameters_once_a_branch_is_built():
    report = _report(
        PREDICT=Branch("PREDICT", returned="raised TypeError"),
        EVAL=Branch("EVAL", built=True, variables=DENSE),
    )
    assert report.variables == DENSE and report.trainable_parameters == 7_850
    assert report.headline() == (
        "model_fn check of model_fn on a batch of 4, 7,850 trainable parameters: OK: Estimator "
        "can train, evaluate and predict with it"
    )
    assert _report(TRAIN=Branch("TRAIN")).trainable_parameters is None  # nothing built


def test_the_text_lists_problems_then_warnings_and_the_table_after_a_blank_line():
    findings, warnings = [Finding("signature", "rename it")], [Finding("signature", "add mode")]
    assert repr(_report(findings, warnings)) == (
        "model_fn check of model_fn on a batch of 4: 1 problem to fix (1 warning)\n"
        "  problem  signature: rename it\n"
        "  warning  signature: add mode"
    )
    built = _report(PREDICT=Branch("PREDICT", returned="raised KeyError"))
    text = repr(built)
    assert text == built.headline() + "\n\n" + built.table().to_string()


def test_the_html_puts_code_in_code_tags_and_keeps_quotes():
    report = _report(
        [Finding("TRAIN", 'use `features["image"]`'), Finding("EVAL", "add a `loss`")],
        [Finding("PREDICT", "1 < 2")],
    )
    assert report._repr_html_() == (
        "<p><b>model_fn check of model_fn on a batch of 4: 2 problems to fix (1 warning)</b></p>\n"
        "<p>Problems:</p><ul>"
        '<li><b>TRAIN</b>: use <code>features["image"]</code></li>'
        "<li><b>EVAL</b>: add a <code>loss</code></li></ul>\n"
        "<p>Warnings:</p><ul><li><b>PREDICT</b>: 1 &lt; 2</li></ul>"
    )


# --------------------------------------------------------------------------- the same variables in
# every mode


def test_variables_of_another_shape_or_only_in_one_branch_are_named_in_one_sentence():
    predict = Branch(
        "PREDICT",
        variables={
            "dense/kernel": (784, 16),
            "dense/bias": (16,),
            "dense_1/kernel": (16, 10),
            "dense_1/bias": (10,),
        },
    )
    train = Branch("TRAIN", variables={**DENSE, "global_scale": ()})
    assert _differences(predict, train) == (
        "only in PREDICT: dense_1/kernel (16, 10) and dense_1/bias (10,); "
        "only in TRAIN: global_scale (); "
        "other shapes: dense/kernel (784, 16) in PREDICT, (784, 10) in TRAIN and "
        "dense/bias (16,) in PREDICT, (10,) in TRAIN"
    )


def test_long_lists_of_variables_are_cut_to_three():
    shapes = {f"conv{i}/kernel": (3, 3, i, i + 1) for i in range(1, 6)}
    assert _with_shapes(list(shapes)[:3], shapes) == (
        "conv1/kernel (3, 3, 1, 2), conv2/kernel (3, 3, 2, 3) and conv3/kernel (3, 3, 3, 4)"
    )
    assert _with_shapes(list(shapes)[:4], shapes).endswith("conv3/kernel (3, 3, 3, 4) and 1 more")
    assert _with_shapes(list(shapes), shapes).endswith(" and 2 more")
    assert [_listed(["a"] * n) for n in range(5)] == [
        "",
        "a",
        "a and a",
        "a, a and a",
        "a, a, a and 1 more",
    ]
    other = Branch("EVAL", variables={name: (1,) for name in shapes})
    reshaped = _differences(other, Branch("TRAIN", variables=shapes))
    assert reshaped.count(" in EVAL, ") == 3 and "conv4" not in reshaped


def test_a_network_built_twice_is_noted_only_when_the_shapes_repeat():
    twice = Branch("TRAIN", variables={**DENSE, "dense_1/kernel": (784, 10), "dense_1/bias": (10,)})
    assert _twice(twice) is True
    assert _twice(Branch("TRAIN", variables=DENSE)) is False
    assert _twice(Branch("TRAIN", variables={"scale": ()})) is False
    assert _twice(Branch("TRAIN")) is False  # no variables: nothing built twice


def test_an_eval_branch_with_another_network_is_compared_with_train():
    report = _report(
        PREDICT=Branch("PREDICT", built=True, variables=DENSE),
        EVAL=Branch("EVAL", built=True, variables={"dense/kernel": (784, 32), "dense/bias": (32,)}),
        TRAIN=Branch("TRAIN", built=True, variables=DENSE),
    )
    check_variables(report)
    assert [f.mode for f in report.findings] == ["EVAL"]
    assert report.findings[0].sentence.startswith(
        "the EVAL branch builds other trainable variables than TRAIN (other shapes: dense/kernel "
        "(784, 32) in EVAL, (784, 10) in TRAIN and dense/bias (32,) in EVAL, (10,) in TRAIN), but "
        "Estimator restores the weights trained in TRAIN into it by name"
    )


def test_without_a_train_branch_predict_is_compared_with_eval():
    """TRAIN failed (no train_op yet, say): PREDICT is still compared with EVAL."""
    report = _report(
        PREDICT=Branch("PREDICT", built=True, variables={"dense/kernel": (784, 32)}),
        EVAL=Branch("EVAL", built=True, variables={"dense/kernel": (784, 10)}),
        TRAIN=Branch("TRAIN", returned="raised ValueError"),
    )
    check_variables(report)
    assert [f.mode for f in report.findings] == ["PREDICT"]
    assert report.findings[0].sentence.startswith(
        "the PREDICT branch builds other trainable variables than EVAL (other shapes: "
        "dense/kernel (784, 32) in PREDICT, (784, 10) in EVAL)"
    )
    assert report.warnings == []


def test_a_second_network_built_after_predict_returns_is_reported_once():
    """PREDICT returns before the model_fn builds a second copy of the network for the loss: the
    predictions use the copy training never changes, which is the finding (the other variables
    follow from it)."""
    second = {"dense_1/kernel": (784, 10), "dense_1/bias": (10,)}
    report = _report(
        PREDICT=Branch("PREDICT", built=True, variables=DENSE, used_variables=frozenset(DENSE)),
        TRAIN=Branch("TRAIN", built=True, variables={**DENSE, **second}, untrained=tuple(DENSE)),
    )
    check_variables(report)
    assert [f.mode for f in report.findings] == ["PREDICT"]
    assert report.findings[0].sentence.startswith(
        "the predictions use dense/kernel (784, 10) and dense/bias (10,), which training never "
        "changes because the TRAIN loss does not depend on them: the TRAIN branch builds the "
        "network twice"
    )
    assert report.warnings == []


# --------------------------------------------------------------------------- in zh-TW


def test_a_zh_tw_learner_reads_the_verdict_findings_and_table_in_chinese(zh_tw):
    zh_tw(
        {
            "model_fn check of {name} on a batch of {batch_size}: {verdict}": (
                "檢查 model_fn {name}（批次大小 {batch_size}）：{verdict}"
            ),
            "1 problem to fix (1 warning)": "有 1 個問題要修正（1 個警告）",
            "problem  {finding}": "問題：{finding}",
            "warning  {finding}": "警告：{finding}",
            "signature": "簽章",
            "Estimator does not pass {names}: it accepts only the parameter names {accepted}, so "
            "rename {names}": (
                "Estimator 不會傳入 {names}：它只接受 {accepted} 這些參數名稱，"
                "所以請重新命名 {names}"
            ),
            "{finding} (Estimator raises `ValueError: {error}`)": (
                "{finding}（Estimator 會引發 `ValueError: {error}`）"
            ),
            "the model_fn has no `mode` parameter, so it cannot tell training, evaluation and "
            "prediction apart: add `mode` and branch on it": (
                "model_fn 沒有 `mode` 參數，所以分不出訓練、評估和預測：請加上 `mode`，並依它分支"
            ),
            "not built (no labels parameter)": "未建立（沒有 labels 參數）",
            "returned": "回傳",
            "mode": "模式",
        }
    )

    def model_fn(features, labels, learning_rate):
        raise AssertionError("not called: Estimator would refuse its signature")

    report = ModelFnReport("model_fn", 4)
    check_signature(model_fn, None, report)
    headline, problem, warning = repr(report).split("\n")
    assert headline == "檢查 model_fn model_fn（批次大小 4）：有 1 個問題要修正（1 個警告）"
    assert problem.startswith(
        "  問題：簽章：Estimator 不會傳入 `learning_rate`：它只接受 features、labels、mode、"
        "params、config 這些參數名稱，所以請重新命名 `learning_rate`（Estimator 會引發 "
        "`ValueError: "
    )
    assert warning == (
        "  警告：簽章：model_fn 沒有 `mode` 參數，所以分不出訓練、評估和預測："
        "請加上 `mode`，並依它分支"
    )
    assert "<li><b>簽章</b>：Estimator 不會傳入 <code>learning_rate</code>" in report._repr_html_()
    report.branches["TRAIN"] = Branch("TRAIN", returned=_("not built (no labels parameter)"))
    shown = report.shown_table()
    assert shown.index.name == "模式" and shown.loc["TRAIN", "回傳"] == "未建立（沒有 labels 參數）"
    assert report.table().loc["TRAIN", "returned"] == "未建立（沒有 labels 參數）"  # code's names
