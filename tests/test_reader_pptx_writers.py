"""The PPTX reader on what LibreOffice Impress and hand-made decks write that pandoc does not:
content placeholders with index 0 (no title), two columns, slides titled by a text box, list
styles inherited from the layout, groups. (bench/readers_writers.py measures whole decks.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:
    from lxml import etree
    from pptx import Presentation
    from pptx.util import Emu, Pt
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("python-pptx is missing: pip install 'chunker-tree[pptx]'", allow_module_level=True)

from chunker.readers.pptx import extract_pptx
from test_reader_pptx import headings

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
LONG = "Each variant can be either signed or unsigned and has an explicit size, as the table shows."


def box(slide, text: str, left: float, top: float, width: float = 3.5, height: float = 1.0, **font):
    shape = slide.shapes.add_textbox(Emu(int(left * 914400)), Emu(int(top * 914400)),
                                     Emu(int(width * 914400)), Emu(int(height * 914400)))
    shape.text_frame.text = text
    for key, value in font.items():
        setattr(shape.text_frame.paragraphs[0].runs[0].font, key, value)
    return shape


def as_libreoffice_placeholder(shape) -> None:
    """What Impress writes for a content placeholder: `<p:ph/>` (type obj, index 0), its
    paragraphs marked `buNone`."""
    etree.SubElement(shape._element.find(f"{{{P}}}nvSpPr/{{{P}}}nvPr"), f"{{{P}}}ph")
    for p in shape.text_frame.paragraphs:
        etree.SubElement(p._p.get_or_add_pPr(), f"{{{A}}}buNone")


def test_an_index_0_content_placeholder_is_no_title(tmp_path):
    prs = Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[5])
    first.shapes.title.text = "Integer Types"
    cont = prs.slides.add_slide(prs.slide_layouts[6])
    as_libreoffice_placeholder(box(cont, LONG, 0.5, 1.0, 8, 3))
    path = tmp_path / "lo.pptx"
    prs.save(path)
    md = extract_pptx(path).markdown
    assert headings(md) == [(1, "Integer Types")]
    assert f"# Integer Types\n\n{LONG}\n" == md


def test_two_columns_are_read_one_after_the_other(tmp_path):
    """The right column's box starts a little higher than the left one's: still left first."""
    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Two suitors"
    box(s, "Left column first line.", 0.5, 1.6, height=3)
    box(s, "Right column.", 5.0, 1.5, height=3)
    box(s, "A footer line below both.", 0.5, 5.0, width=8, height=0.5)
    path = tmp_path / "cols.pptx"
    prs.save(path)
    md = extract_pptx(path).markdown
    assert md.index("Left column") < md.index("Right column") < md.index("A footer line")


def test_an_untitled_slide_is_titled_by_its_large_first_line(tmp_path):
    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Where they live"
    box(s, "Hartfield is in Highbury.", 0.5, 1.5)
    blank = prs.slides.add_slide(prs.slide_layouts[6])
    box(blank, "The first chapter", 0.5, 0.3, 8, 0.8, size=Pt(36))
    body = box(blank, "Emma is handsome, clever and rich.", 0.5, 1.5, 8, 2)
    para = body.text_frame.add_paragraph()
    para.text = "Sub point"
    para.runs[0].font.bold = True
    continued = prs.slides.add_slide(prs.slide_layouts[6])  # a continuation: body text first
    box(continued, "More about her father, who dislikes change.", 0.5, 0.3, 8, 2)
    path = tmp_path / "untitled.pptx"
    prs.save(path)
    md = extract_pptx(path).markdown
    assert headings(md) == [(1, "Where they live"), (1, "The first chapter"), (2, "Sub point")]
    assert md.endswith("## Sub point\n\nMore about her father, who dislikes change.\n")


def test_bullets_follow_the_layout_list_style_and_groups_keep_their_order(tmp_path):
    """The section header layout's body placeholder says `buNone`; a content one bullets."""
    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[2])  # section header
    s.shapes.title.text = "Volume II"
    s.placeholders[1].text = "Frank Churchill arrives"
    s = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    s.shapes.title.text = "Characters"
    s.placeholders[1].text = "Emma"
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Houses"
    group = s.shapes.add_group_shape()
    inner = group.shapes.add_group_shape()
    for text, left, top in (("Randalls", 5.0, 2.0), ("Hartfield", 0.5, 2.0)):
        inner.shapes.add_textbox(Emu(int(left * 914400)), Emu(int(top * 914400)), Emu(3 * 914400),
                                 Emu(914400)).text_frame.text = text
    group.shapes.add_textbox(Emu(457200), Emu(4 * 914400), Emu(3 * 914400), Emu(914400)).text_frame.text = "Donwell"
    path = tmp_path / "layouts.pptx"
    prs.save(path)
    md = extract_pptx(path).markdown
    assert "# Volume II\n\nFrank Churchill arrives\n\n# Characters\n\n- Emma\n" in md
    assert md.endswith("# Houses\n\nHartfield\n\nRandalls\n\nDonwell\n")


def test_a_link_over_two_runs_is_one_link(tmp_path):
    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Links"
    para = box(s, "See the ", 0.5, 1.5).text_frame.paragraphs[0]
    for text, font in (("Errors with ", None), ("panic!", "Courier New")):
        run = para.add_run()
        run.text = text
        run.hyperlink.address = "https://example.org/ch09"
        if font:
            run.font.name = font
    para.add_run().text = " section."
    path = tmp_path / "links.pptx"
    prs.save(path)
    assert extract_pptx(path).markdown.endswith("See the [Errors with `panic!`](https://example.org/ch09) section.\n")
