"""The report of ``check_model_fn``: each ``Finding``, what each branch returned (``Branch``), the
verdict, and the report as text, HTML and a table; and the wording the findings share (a list of
names, where a line is)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..language import _, all_of, current, listed
from ..learner_code import Line, where
from ..problems import WorkbookProblem


class Finding(NamedTuple):
    """One thing to change: the mode it was found in (or ``signature``) and a sentence."""

    mode: str
    sentence: str

    def label(self) -> str:
        """What the finding is listed under: its mode, or the signature in the learner's
        language."""
        # TRANSLATORS: what a finding about the model_fn's parameter names is listed under
        return _("signature") if self.mode == "signature" else self.mode

    def __str__(self) -> str:
        return f"{self.label()}{colon()}{self.sentence}"


def colon() -> str:
    """What follows a label: ``": "`` in English, the full-width ``"："`` in Chinese."""
    return "：" if current() == "zh_TW" else ": "


@dataclass
class Branch:
    """What one mode's branch returned, as the checker saw it when it ran it."""

    mode: str
    built: bool = False
    returned: str = field(default_factory=lambda: _("not built"))
    predictions: dict = field(default_factory=dict)  # key -> evaluated shape
    prediction_values: dict = field(default_factory=dict)  # key -> numpy array
    export_outputs: tuple = ()
    loss_shape: tuple | None = None
    metrics: dict = field(default_factory=dict)  # name -> shape of the value after one update
    train_op: bool | None = None
    global_step: tuple | None = None  # (before, after) one run of train_op
    variables: dict = field(default_factory=dict)  # trainable variable name -> shape
    used_variables: frozenset = frozenset()  # variables the predictions (PREDICT) or loss use
    untrained: tuple = ()  # TRAIN: trainable variables the loss has no gradient for

    def row(self) -> dict:
        """The branch's row of the report's table."""
        if not self.built:
            return {"returned": self.returned}
        if self.train_op is None:
            train_op = "-"
        elif self.global_step is None:
            train_op = _("yes, not run")
        else:
            before, after = self.global_step
            train_op = _("yes, global step {before} → {after}").format(before=before, after=after)
        loss = "-" if self.loss_shape is None else _shapes({"": self.loss_shape}).strip()
        return {
            "returned": self.returned,
            "predictions": _shapes(self.predictions),
            "export_outputs": ", ".join(self.export_outputs) or "-",
            "loss": loss,
            "eval_metric_ops": _shapes(self.metrics),
            "train_op": train_op,
        }


def _shapes(named: dict) -> str:
    """``classes (4,), probabilities (4, 10)``: names and shapes, ``scalar`` for a shape ()."""
    scalar = _("scalar")  # TRANSLATORS: the shape () of a value, in the report's table
    listed = (f"{key} {scalar if len(s) == 0 else tuple(s)}" for key, s in named.items())
    return ", ".join(listed) or "-"


TABLE_COLUMNS = ("returned", "predictions", "export_outputs", "loss", "eval_metric_ops", "train_op")


def verdict(problems: int, warnings: int) -> str:
    """The report's verdict for ``problems`` and ``warnings`` (each counted 0, 1 or more)."""
    verdicts = {
        (0, 0): _("OK: Estimator can train, evaluate and predict with it"),
        (0, 1): _("OK: Estimator can train, evaluate and predict with it (1 warning)"),
        (0, 2): _("OK: Estimator can train, evaluate and predict with it ({warnings} warnings)"),
        (1, 0): _("1 problem to fix"),
        (1, 1): _("1 problem to fix (1 warning)"),
        (1, 2): _("1 problem to fix ({warnings} warnings)"),
        (2, 0): _("{problems} problems to fix"),
        (2, 1): _("{problems} problems to fix (1 warning)"),
        (2, 2): _("{problems} problems to fix ({warnings} warnings)"),
    }
    return verdicts[(min(problems, 2), min(warnings, 2))].format(
        problems=problems, warnings=warnings
    )


@dataclass
class ModelFnReport:
    """The result of ``check_model_fn``: findings, warnings and one ``Branch`` per mode."""

    name: str
    batch_size: int
    findings: list = field(default_factory=list)  # of Finding
    warnings: list = field(default_factory=list)  # of Finding
    branches: dict = field(default_factory=dict)  # "PREDICT" / "EVAL" / "TRAIN" -> Branch

    @property
    def ok(self) -> bool:  # Estimator could train, evaluate and predict with this model_fn
        return not self.findings

    @property
    def variables(self) -> dict:  # the trainable variables {name: shape} of the first branch built
        return next((dict(b.variables) for b in self.branches.values() if b.built), {})

    @property
    def trainable_parameters(self) -> int | None:
        built = any(b.built for b in self.branches.values())
        return int(sum(np.prod(shape) for shape in self.variables.values())) if built else None

    def problem(self, mode: str, sentence: str) -> None:
        self.findings.append(Finding(mode, sentence))

    def warn(self, mode: str, sentence: str) -> None:
        self.warnings.append(Finding(mode, sentence))

    def table(self) -> pd.DataFrame:
        """One row per branch, in the order of MODES (the order check_model_fn adds them)."""
        rows = [branch.row() for branch in self.branches.values()]
        frame = pd.DataFrame(rows, index=list(self.branches), columns=list(TABLE_COLUMNS))
        return frame.rename_axis("mode").fillna("-")

    def shown_table(self) -> pd.DataFrame:
        """``table()`` with the headings that are words (not code) in the learner's language."""
        # TRANSLATORS: headings of the model_fn check's table; the other columns are code names
        headings = {"returned": _("returned")}
        return self.table().rename(columns=headings).rename_axis(_("mode"))

    def raise_if_problems(self) -> None:
        if self.findings:
            raise WorkbookProblem(str(self.findings[0]))

    def headline(self) -> str:
        said = verdict(len(self.findings), len(self.warnings))
        if self.trainable_parameters is None:
            return _("model_fn check of {name} on a batch of {batch_size}: {verdict}").format(
                name=self.name, batch_size=self.batch_size, verdict=said
            )
        return _(
            "model_fn check of {name} on a batch of {batch_size}, {parameters:,} trainable "
            "parameters: {verdict}"
        ).format(
            name=self.name,
            batch_size=self.batch_size,
            parameters=self.trainable_parameters,
            verdict=said,
        )

    def __repr__(self) -> str:
        problem, warning = _("problem  {finding}"), _("warning  {finding}")
        lines = [
            self.headline(),
            *("  " + problem.format(finding=f) for f in self.findings),
            *("  " + warning.format(finding=f) for f in self.warnings),
        ]
        if self.branches:  # Chinese characters take two columns of a fixed-width font
            with pd.option_context("display.unicode.east_asian_width", current() == "zh_TW"):
                lines += ["", self.shown_table().to_string()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        def code(text: str) -> str:  # `code` in backticks becomes <code>code</code>
            return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))

        parts = [f"<p><b>{code(self.headline())}</b></p>"]
        for title, findings in ((_("Problems:"), self.findings), (_("Warnings:"), self.warnings)):
            if findings:
                items = "".join(
                    f"<li><b>{code(f.label())}</b>{colon()}{code(f.sentence)}</li>"
                    for f in findings
                )
                parts.append(f"<p>{title}</p><ul>{items}</ul>")
        return "\n".join(parts + ([self.shown_table().to_html()] if self.branches else []))


def _with_shapes(names, shapes: dict) -> str:
    """``dense/kernel (784, 10), dense/bias (10,) and 2 more``: names with their shapes."""
    return _listed([f"{name} {shapes[name]}" for name in names])


def _listed(items: list, limit: int = 3) -> str:
    """``a, b and c``; beyond ``limit`` items, ``a, b, c and 2 more``."""
    items = list(items)
    if len(items) > limit:
        return _("{first} and {more} more").format(
            first=listed(items[:limit]), more=len(items) - limit
        )
    return all_of(items)


def _at(line: Line | None) -> str:
    """Where a finding happened: the learner's line, or that it is unknown."""
    return where(line) if line else _("line unknown")
