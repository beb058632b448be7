"""`deck.pptx` (python-pptx) and LibreOffice Impress's re-save of it (bench/writers_build.py):
layouts with title and body placeholders, nested bullets, grouped and nested-grouped shapes,
a table with merged cells, a slide titled only by a text box, a section header, two columns,
and speaker notes. `deck.expected.md` is what a reader should give (slide titles as `#`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from writers_build import emma


def deck(out: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Emu, Pt

    prs = Presentation()
    md: list[str] = []
    s = prs.slides.add_slide(prs.slide_layouts[0])  # title slide
    s.shapes.title.text = "Emma in six slides"
    s.placeholders[1].text = "A reading group handout"
    md += ["# Emma in six slides", "A reading group handout"]

    s = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    s.shapes.title.text = "The characters"
    body = s.placeholders[1].text_frame
    lines = [("Emma Woodhouse", 0), ("handsome, clever, and rich", 1), ("Mr. Knightley", 0),
             ("of Donwell Abbey", 1), ("brother of John Knightley", 2)]
    body.text = lines[0][0]
    for text, level in lines[1:]:
        para = body.add_paragraph()
        para.text, para.level = text, level
    md += ["# The characters"] + ["    " * lv + "- " + t for t, lv in lines]
    s.notes_slide.notes_text_frame.text = "Ask the group which character they like least."
    md.append("> Notes: Ask the group which character they like least.")

    s = prs.slides.add_slide(prs.slide_layouts[5])  # title only, then a group and a table
    s.shapes.title.text = "Where they live"
    group = s.shapes.add_group_shape()
    a = group.shapes.add_textbox(Emu(457200), Emu(1600200), Emu(3000000), Emu(500000))
    a.text_frame.text = "Hartfield is in Highbury."
    inner = group.shapes.add_group_shape()
    b = inner.shapes.add_textbox(Emu(457200), Emu(2200000), Emu(3000000), Emu(500000))
    b.text_frame.text = "Donwell Abbey is a mile away."
    c = inner.shapes.add_textbox(Emu(4000000), Emu(2200000), Emu(3000000), Emu(500000))
    c.text_frame.text = "Randalls is half a mile away."
    md += ["# Where they live", "Hartfield is in Highbury.", "Donwell Abbey is a mile away.",
           "Randalls is half a mile away."]
    rows = [["House", "Owner", "Distance"], ["Hartfield", "Mr. Woodhouse", "0"],
            ["Donwell Abbey", "Mr. Knightley", "1 mile"], ["Randalls", "Mr. Weston", "half a mile"],
            ["All three in Surrey", "", ""]]
    shape = s.shapes.add_table(5, 3, Emu(457200), Emu(3200000), Emu(8000000), Emu(2500000))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            if text:
                shape.table.cell(i, j).text = text
    shape.table.cell(4, 0).merge(shape.table.cell(4, 2))
    md.append("| " + " | ".join(rows[0]) + " |\n|---|---|---|\n" + "\n".join(
        "| " + " | ".join(r) + " |" for r in rows[1:]))
    s.notes_slide.notes_text_frame.text = "Point at the map.\nDonwell is to the north."
    md.append("> Notes: Point at the map.\n>\n> Donwell is to the north.")

    s = prs.slides.add_slide(prs.slide_layouts[6])  # blank: its title is a text box
    box = s.shapes.add_textbox(Emu(457200), Emu(300000), Emu(8000000), Emu(700000))
    box.text_frame.text = "The first chapter"
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(36)
    box.text_frame.paragraphs[0].runs[0].font.bold = True
    text = s.shapes.add_textbox(Emu(457200), Emu(1300000), Emu(8000000), Emu(3000000))
    text.text_frame.word_wrap = True
    text.text_frame.text = emma(1, 1)[0]
    md += ["## The first chapter", emma(1, 1)[0]]

    s = prs.slides.add_slide(prs.slide_layouts[2])  # section header
    s.shapes.title.text = "Volume II"
    s.placeholders[1].text = "Frank Churchill arrives"
    md += ["# Volume II", "Frank Churchill arrives"]

    s = prs.slides.add_slide(prs.slide_layouts[3])  # two content
    s.shapes.title.text = "Two suitors"
    s.placeholders[1].text = "Mr. Elton: ambitious"
    s.placeholders[2].text = "Mr. Martin: a farmer"
    md += ["# Two suitors", "- Mr. Elton: ambitious", "- Mr. Martin: a farmer"]
    s.notes_slide.notes_text_frame.text = "Compare their letters."
    md.append("> Notes: Compare their letters.")
    path = out / "deck.pptx"
    prs.save(str(path))
    (out / "deck.expected.md").write_text("\n\n".join(md) + "\n", encoding="utf-8")
    return path


def deck_files(out: Path) -> list[tuple]:
    from writers_make import soffice

    path = deck(out)
    soffice(out / "lo", "pptx:Impress MS PowerPoint 2007 XML", [path])
    target = out / "libreoffice-deck.pptx"
    shutil.copy(out / "lo" / "deck.pptx", target)
    return [(path, "python-pptx 1.0", None), (target, "LibreOffice 7.4 Impress (re-saved)", None)]
