"""The DOCX reader on what Word and LibreOffice write that pandoc does not: a table of contents,
outline levels that override a heading style, tracked deletions of a heading, links written as
HYPERLINK fields, text boxes anchored mid-sentence and code with blank lines around it.
(bench/readers_writers.py measures the same structures on whole files.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("python-docx is missing: pip install 'chunker-tree[docx]'", allow_module_level=True)

from chunker.readers.docx import extract_docx
from test_reader_docx import TEXT_BOX, headings

W = nsdecls("w")


def r(text: str) -> str:
    return f'<w:r {W}><w:t xml:space="preserve">{text}</w:t></w:r>'


def field(instr: str, result: str) -> str:
    return (f'<w:r {W}><w:fldChar w:fldCharType="begin"/></w:r><w:r {W}><w:instrText xml:space="preserve">'
            f' {instr} </w:instrText></w:r><w:r {W}><w:fldChar w:fldCharType="separate"/></w:r>'
            f'{r(result)}<w:r {W}><w:fldChar w:fldCharType="end"/></w:r>')


def para(inner: str, style: str | None = None) -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p {W}>{ppr}{inner}</w:p>"


def write(tmp_path: Path, blocks: list[str], styles=None) -> Path:
    d = docx.Document()
    if styles:
        styles(d)
    sect = d.element.body[-1]
    for xml in blocks:
        sect.addprevious(parse_xml(xml))
    path = tmp_path / "doc.docx"
    d.save(path)
    return path


def test_a_table_of_contents_is_left_out_and_its_title_is_no_heading(tmp_path):
    """Word's TOC: a `w:sdt` of the `Table of Contents` gallery, its title in `TOC Heading`
    (based on Heading 1, outline level 9: body text), its entries a TOC field's cached result
    in `toc N` styles; older files have the entries without the control."""
    entries = para(field('TOC \\o "1-3" \\h', "Volume One\t1"), "toc1") + para(r("Chapter I\t2"), "toc2")
    toc = (f'<w:sdt {W}><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
           f'</w:docPartObj></w:sdtPr><w:sdtContent>{para(r("Contents"), "TOCHeading")}{entries}'
           "</w:sdtContent></w:sdt>")
    bare = para(r("Old style entry\t3"), "toc1")

    def styles(d):
        d.styles.add_style("toc 1", 1)  # python-docx's template has `TOC Heading`, not `toc N`
        d.styles.add_style("toc 2", 1)

    path = write(tmp_path, [toc, bare, para(r("Volume One"), "Heading1"), para(r("Body text."))], styles)
    got = extract_docx(path)
    got.check()
    assert got.markdown == "# Volume One\n\nBody text.\n"
    assert [p.paragraph for p in got.places] == [4, 5]  # the skipped blocks still count


def test_the_nearest_outline_level_decides(tmp_path):
    def styles(d):
        unnumbered = d.styles.add_style("Unlisted Heading", 1)  # looks like Heading 1, is body text
        unnumbered.base_style = d.styles["Heading 1"]
        unnumbered.element.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {W} w:val="9"/>'))
        sub = d.styles.add_style("Sub Part", 1)  # based on Heading 1 but one level down
        sub.base_style = d.styles["Heading 1"]
        sub.element.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {W} w:val="1"/>'))

    body_level = f'<w:p {W}><w:pPr><w:pStyle w:val="Heading2"/><w:outlineLvl w:val="9"/></w:pPr>{r("Set as body text")}</w:p>'
    path = write(tmp_path, [para(r("Top"), "Heading1"), para(r("Not in the outline"), "UnlistedHeading"),
                            para(r("Second level"), "SubPart"), body_level], styles)
    md = extract_docx(path).markdown
    assert headings(md) == [(1, "Top"), (2, "Second level")]
    assert "Not in the outline" in md and "Set as body text" in md


def test_a_heading_deleted_in_tracked_changes_leaves_no_empty_heading(tmp_path):
    deleted = (f'<w:p {W}><w:pPr><w:pStyle w:val="Heading2"/><w:rPr><w:del w:id="1" w:author="a"/></w:rPr>'
               '</w:pPr><w:del w:id="2" w:author="a"><w:r><w:delText>Old title</w:delText></w:r></w:del></w:p>')
    md = extract_docx(write(tmp_path, [para(r("Kept"), "Heading1"), deleted, para(r("Text."))])).markdown
    assert md == "# Kept\n\nText.\n"


def test_hyperlink_fields_are_links(tmp_path):
    """LibreOffice writes every link as a complex HYPERLINK field; `w:fldSimple` holds one too."""
    complex_field = para(r("See the ") + field('HYPERLINK "https://example.org/guide" \\l "part-2"', "guide")
                         + r(" and ") + field('HYPERLINK \\l "_Toc1"', "above") + r("."))
    simple = para(r("Or ") + f'<w:fldSimple {W} w:instr=" HYPERLINK &quot;https://example.org/&quot; ">'
                  + r("home") + "</w:fldSimple>" + r(" on page ") + field("PAGE", "3") + r("."))
    md = extract_docx(write(tmp_path, [complex_field, simple])).markdown
    assert "See the [guide](https://example.org/guide#part-2) and [above](#_Toc1)." in md
    assert "Or [home](https://example.org/) on page 3." in md
    assert "HYPERLINK" not in md and "PAGE" not in md


def test_a_floating_text_box_is_kept_apart_from_the_sentence_it_is_anchored_in(tmp_path):
    box = TEXT_BOX.replace("<w:r ", "<w:r ", 1)
    mid = f'<w:p {W}>{r("The mill stands ")}{box}{r("by the river.")}</w:p>'
    path = write(tmp_path, [para(r("Mills"), "Heading1"), mid])
    got = extract_docx(path)
    got.check()
    assert got.markdown == "# Mills\n\nThe mill stands by the river.\n\nBoxed note\n"


def test_code_keeps_inner_blank_lines_but_none_around_it(tmp_path):
    def styles(d):
        d.styles.add_style("Source Code", 1)

    code = [para("", "SourceCode"), para(r("fn main() {"), "SourceCode"), para("", "SourceCode"),
            para(r("}"), "SourceCode"), para("", "SourceCode")]
    md = extract_docx(write(tmp_path, [para(r("Before.")), *code, para(r("After."))], styles)).markdown
    assert md == "Before.\n\n```\nfn main() {\n\n}\n```\n\nAfter.\n"
    only_blank = [para(r("Before.")), para("", "SourceCode"), para(r("After."))]
    assert "```" not in extract_docx(write(tmp_path, only_blank, styles)).markdown


def test_a_link_with_code_inside_is_one_link(tmp_path):
    code = f'<w:r {W}><w:rPr><w:rFonts w:ascii="Courier New"/></w:rPr><w:t>panic!</w:t></w:r>'
    begin = (f'<w:r {W}><w:fldChar w:fldCharType="begin"/></w:r><w:r {W}><w:instrText> HYPERLINK '
             f'"ch09.html" </w:instrText></w:r><w:r {W}><w:fldChar w:fldCharType="separate"/></w:r>')
    end = f'<w:r {W}><w:fldChar w:fldCharType="end"/></w:r>'
    md = extract_docx(write(tmp_path, [para(r("See the ") + begin + r("Errors with ") + code + end
                                            + r(" section."))])).markdown
    assert md == "See the [Errors with `panic!`](ch09.html) section.\n"
