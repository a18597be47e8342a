"""What every experiment writes: a markdown table and a PNG plot, in one result object."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..files import write_atomic, write_text


@dataclass(frozen=True)
class Series:
    """One line of a plot."""

    label: str
    x: Sequence[float]
    y: Sequence[float]


@dataclass(frozen=True)
class ExperimentResult:
    """A finished experiment: its table (headers, rows) and the lines of its plot."""

    name: str
    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[object]]
    series: Sequence[Series] = ()
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = True
    logy: bool = True
    notes: Sequence[str] = field(default_factory=tuple)
    xticklabels: Sequence[str] = ()  #: names of the x positions 0, 1, ... for a categorical x axis
    setup: Sequence[str] = ()  #: the game and settings used, and how they differ from the paper's (shown before the table)

    def markdown(self) -> str:
        head = "".join(f"{line}\n\n" for line in self.setup)
        return f"## {self.title}\n\n" + head + markdown_table(self.headers, self.rows) + "".join(f"\n{n}\n" for n in self.notes)

    def write(self, out_dir: str | Path) -> tuple[Path, Path | None]:
        """Write ``NAME.md`` and, if there is something to plot, ``NAME.png`` into ``out_dir``."""
        out = Path(out_dir)
        md = write_text(out / f"{self.name}.md", self.markdown())
        png = None
        if self.series:
            png = plot_series(self.series, out / f"{self.name}.png", self.title, self.xlabel, self.ylabel, self.logx, self.logy,
                              self.xticklabels)
        return md, png


def format_cell(x: object) -> str:
    if isinstance(x, float):
        if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
            return f"{x:.3e}"
        return f"{x:.4f}"
    return str(x)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(format_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def plot_series(series: Sequence[Series], path: Path, title: str, xlabel: str, ylabel: str,
                logx: bool = True, logy: bool = True, xticklabels: Sequence[str] = ()) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for s in series:
        ax.plot(s.x, s.y, marker="o", markersize=3, label=s.label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if xticklabels:
        ax.set_xticks(range(len(xticklabels)), list(xticklabels), rotation=45, ha="right", fontsize=7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(textwrap.fill(title, 64), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=120))
