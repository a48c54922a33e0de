"""The page engine: a small document model written once, rendered as HTML and as Markdown.

A page builder fills a :class:`_Document` with blocks (headings, paragraphs,
summary boxes, tables, figures, collapsible lists). Text is plain: a
paragraph is a sequence of strings and emphasis spans (:func:`_strong`,
:func:`_em`, :func:`_code`); the renderers escape it. :func:`_render_html`
writes one self-contained page (inline CSS, images as ``data:`` URIs,
nothing fetched from anywhere); :func:`_render_markdown` writes the same
content as Markdown, each figure replaced by its caption.

A figure holds a function that draws it; only the HTML renderer calls it,
so the Markdown page never needs matplotlib.
"""

import base64
import html
from dataclasses import dataclass, field

from mtbn.report.formatting import _option_text

__all__ = []


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    """Inline text with a style: "strong", "em" or "code"."""

    style: str
    text: str


def _strong(text):
    return _Span("strong", str(text))


def _em(text):
    return _Span("em", str(text))


def _code(text):
    return _Span("code", str(text))


@dataclass(frozen=True)
class _Heading:
    text: str


@dataclass(frozen=True)
class _Paragraph:
    parts: tuple
    lead: bool = False


@dataclass(frozen=True)
class _Box:
    """A highlighted summary: a bulleted list of inline items."""

    items: tuple


@dataclass(frozen=True)
class _Table:
    headers: tuple
    rows: tuple
    numeric: frozenset = frozenset()
    row_classes: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _Figure:
    draw: object  # () -> PNG bytes
    alt: str
    caption: str


@dataclass(frozen=True)
class _Details:
    """A collapsible list (HTML) or one line (Markdown)."""

    summary: str
    items: tuple


class _Document:
    """A page: a title and blocks, in order. Each method appends one block."""

    def __init__(self, title):
        self.title = title
        self.blocks = []

    def heading(self, text):
        self.blocks.append(_Heading(str(text)))

    def para(self, *parts, lead=False):
        """A paragraph of strings and spans, concatenated."""
        self.blocks.append(_Paragraph(tuple(parts), lead))

    def box(self, items):
        """``items``: each a string, a span or a tuple of them."""
        self.blocks.append(_Box(tuple(item if isinstance(item, tuple) else (item,) for item in items)))

    def table(self, headers, rows, *, numeric=(), row_classes=None):
        """``rows`` of plain-text cells; ``numeric`` column indices are right-aligned.

        ``row_classes`` maps a row index to "chosen" or "gap" (highlighted in HTML).
        """
        self.blocks.append(_Table(tuple(map(str, headers)), tuple(tuple(map(str, r)) for r in rows),
                                  frozenset(numeric), dict(row_classes or {})))

    def figure(self, draw, alt, caption):
        """``draw()`` returns PNG bytes; it is called only when the HTML page is rendered."""
        self.blocks.append(_Figure(draw, alt, caption))

    def details(self, summary, items):
        self.blocks.append(_Details(str(summary), tuple(map(str, items))))


# ---------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------

_CSS = """
body { font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; color: #222; background: #fff;
       max-width: 1100px; margin: 2em auto; padding: 0 1.5em; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 2px solid #4e79a7; padding-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; color: #2b4a6f; }
p.lead { font-size: 1.03em; }
.summary { background: #f3f6fa; border-left: 4px solid #4e79a7; padding: .6em 1em; margin: 1em 0; }
table { border-collapse: collapse; margin: .6em 0 1.2em 0; font-size: .92em; }
th, td { border: 1px solid #ccd3db; padding: .25em .6em; text-align: left; }
th { background: #eef2f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: Menlo, Consolas, monospace; }
tr.chosen td { background: #fff3cd; font-weight: bold; }
tr.gap td { border-bottom: 3px dashed #d73027; }
figure { margin: 1em 0 1.6em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e2e6ea; }
figcaption { font-size: .9em; color: #555; margin-top: .3em; }
code { background: #f4f4f4; padding: 0 .2em; }
footer { margin-top: 3em; border-top: 1px solid #ccd3db; padding-top: .6em; font-size: .85em; color: #555; }
footer table { font-size: .95em; }
"""

# No network access of any kind from the page: only inline styles and data: images.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _e(text):
    return html.escape(str(text), quote=False)


def _html_inline(parts):
    return "".join(f"<{p.style}>{_e(p.text)}</{p.style}>" if isinstance(p, _Span) else _e(p) for p in parts)


def _html_table(block):
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in block.headers) + "</tr></thead>",
           "<tbody>"]
    for r, row in enumerate(block.rows):
        cls = block.row_classes.get(r)
        cells = "".join(f'<td class="num">{_e(c)}</td>' if j in block.numeric else f"<td>{_e(c)}</td>"
                        for j, c in enumerate(row))
        out.append(f'<tr class="{cls}">{cells}</tr>' if cls else f"<tr>{cells}</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _html_figure(block):
    data = base64.b64encode(block.draw()).decode("ascii")
    return (f'<figure><img alt="{html.escape(block.alt, quote=True)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(block.caption)}</figcaption></figure>")


def _html_block(block):
    if isinstance(block, _Heading):
        return f"<h2>{_e(block.text)}</h2>"
    if isinstance(block, _Paragraph):
        return ('<p class="lead">' if block.lead else "<p>") + _html_inline(block.parts) + "</p>"
    if isinstance(block, _Box):
        items = "".join(f"<li>{_html_inline(item)}</li>" for item in block.items)
        return f'<div class="summary"><ul>{items}</ul></div>'
    if isinstance(block, _Table):
        return _html_table(block)
    if isinstance(block, _Figure):
        return _html_figure(block)
    items = "".join(f"<li>{_e(x)}</li>" for x in block.items)
    return f"<details><summary>{_e(block.summary)}</summary><ul>{items}</ul></details>"


def _html_footer(provenance):
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in provenance.items() if k != "options")
    opts = provenance.get("options") or {}
    opt_rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_option_text(v))}</td></tr>" for k, v in opts.items())
    return ("<footer><strong>Provenance</strong>" f"<table>{rows}</table>"
            + (f"<strong>Options</strong><table>{opt_rows}</table>" if opt_rows else "") + "</footer>")


def _render_html(doc, provenance):
    """One self-contained HTML page: the document, then the provenance footer."""
    body = "\n".join(_html_block(b) for b in doc.blocks)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{_e(doc.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<h1>{_e(doc.title)}</h1>\n{body}\n{_html_footer(provenance)}\n</body>\n</html>\n"
    )


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------

_MD_MARKS = {"strong": "**", "em": "*", "code": "`"}


def _md(text):
    """Plain text safe in Markdown (tables included): no raw HTML (``<`` backslash-escaped, so that no tag can
    start; ``a -> b`` stays as written), no block quote, no cell breaks, one line."""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "\\<").replace("\n", " ")
    return "\\" + out if out.startswith(">") else out


def _md_inline(parts):
    out = []
    for p in parts:
        if isinstance(p, _Span):
            mark = _MD_MARKS[p.style]
            out.append(f"{mark}{p.text if p.style == 'code' else _md(p.text)}{mark}")
        else:
            out.append(_md(p))
    return "".join(out)


def _md_row(cells):
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def _md_block(block):
    """The lines of one block, without the blank line after it."""
    if isinstance(block, _Heading):
        return [f"## {_md(block.text)}"]
    if isinstance(block, _Paragraph):
        return [_md_inline(block.parts)]
    if isinstance(block, _Box):
        return [f"- {_md_inline(item)}" for item in block.items]
    if isinstance(block, _Table):
        align = "| " + " | ".join("---:" if j in block.numeric else "---" for j in range(len(block.headers))) + " |"
        return [_md_row(block.headers), align] + [_md_row(r) for r in block.rows]
    if isinstance(block, _Figure):
        return [f"*Figure (in report.html): {_md(block.caption)}*"]
    return [f"{_md(block.summary)}: " + ", ".join(_md(x) for x in block.items)]


def _render_markdown(doc, provenance):
    """The document as Markdown (figures as captions), then the provenance tables."""
    lines = [f"# {_md(doc.title)}", ""]
    for block in doc.blocks:
        lines += _md_block(block) + [""]
    lines += ["## Provenance", "", "| | |", "| --- | --- |"]
    lines += [_md_row([k, v]) for k, v in provenance.items() if k != "options"]
    opts = provenance.get("options") or {}
    if opts:
        lines += ["", "| option | value |", "| --- | --- |"] + [_md_row([k, _option_text(v)]) for k, v in opts.items()]
    return "\n".join(lines) + "\n"
