"""`word-like.docx`: the structures Word writes that converters do not (bench/writers_build.py).

python-docx makes the package, the styles and the tables; the WordprocessingML it has no API for
(a table of contents, footnotes, tracked changes, text boxes, fields) is written as Word writes
it. `NAME.expected.md` beside it is what a reader should give: headings at the level their
style or outline level says, every body word, no TOC, no deleted text, no header or footer.
"""

from __future__ import annotations

from pathlib import Path

from writers_build import emma, esc

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (f'xmlns:w="{W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
      'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
      'xmlns:v="urn:schemas-microsoft-com:vml" '
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')


def r(text: str, rpr: str = "") -> str:
    return f'<w:r>{f"<w:rPr>{rpr}</w:rPr>" if rpr else ""}<w:t xml:space="preserve">{esc(text)}</w:t></w:r>'


def p(inner: str, style: str | None = None, ppr: str = "") -> str:
    pstyle = f'<w:pStyle w:val="{style}"/>' if style else ""
    return f"<w:p {NS}><w:pPr>{pstyle}{ppr}</w:pPr>{inner}</w:p>"


def fld(instr: str, result: str) -> str:
    return ('<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            f'<w:r><w:instrText xml:space="preserve"> {instr} </w:instrText></w:r>'
            f'<w:r><w:fldChar w:fldCharType="separate"/></w:r>{r(result)}'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>')


def text_box(text: str) -> str:
    box = f"<w:txbxContent><w:p>{r(text)}</w:p></w:txbxContent>"
    return ('<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor>'
            f'<a:graphic><a:graphicData><wps:wsp><wps:txbx>{box}</wps:txbx></wps:wsp>'
            '</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict>'
            f'<v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>'
            '</mc:AlternateContent></w:r>')


def notes_part(document, kind: str, notes: dict[int, str]) -> None:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    body = "".join(f'<w:{kind} w:id="{i}"><w:p><w:pPr><w:pStyle w:val="{kind.title()}Text"/>'
                   f'</w:pPr><w:r><w:{kind}Ref/></w:r>{r(" " + t)}</w:p></w:{kind}>'
                   for i, t in notes.items())
    xml = (f'<w:{kind}s {NS}><w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/>'
           f'</w:r></w:p></w:{kind}><w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r>'
           f'<w:continuationSeparator/></w:r></w:p></w:{kind}>{body}</w:{kind}s>')
    ct = f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}s+xml"
    part = Part(PackURI(f"/word/{kind}s.xml"), ct, xml.encode(), document.part.package)
    document.part.relate_to(part, RT.FOOTNOTES if kind == "footnote" else RT.ENDNOTES)


def word_like_docx(out: Path) -> tuple:
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    d.core_properties.title = "Emma, an excerpt"
    d.core_properties.author = "Jane Austen"
    chapter = d.styles.add_style("Chapter Heading", 1)
    chapter.base_style = d.styles["Heading 1"]
    scene = d.styles.add_style("Scene", 1)
    scene.base_style = d.styles["Heading 3"]
    section = d.sections[0]
    section.header.paragraphs[0].text = "Confidential draft, do not circulate"
    section.footer.paragraphs[0].text = "Printed by the Highbury press"
    body = d.element.body
    sect = body[-1]
    md: list[str] = []

    def add(xml: str, expected: str | None = None) -> None:
        sect.addprevious(parse_xml(xml))
        if expected:
            md.append(expected)

    add(p(r("Emma, an excerpt"), "Title"), "# Emma, an excerpt")
    toc = [("Volume One", 1), ("Chapter I", 2), ("Hartfield", 3), ("Chapter II", 2)]
    entries = "".join(p(f'<w:hyperlink w:anchor="_Toc{i}" w:history="1">{r(t)}<w:r><w:tab/></w:r>'
                        + fld("PAGEREF _Toc%d \\h" % i, str(i + 1)) + '</w:hyperlink>', f"TOC{lvl}")
                      for i, (t, lvl) in enumerate(toc))
    add(f'<w:sdt {NS}><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
        f'<w:docPartUnique/></w:docPartObj></w:sdtPr><w:sdtContent>'
        f'{p(r("Contents"), "TOCHeading")}'
        + entries.replace("<w:hyperlink", '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r>'
                          '<w:instrText xml:space="preserve"> TOC \\o "1-3" \\h \\z \\u </w:instrText>'
                          '</w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:hyperlink', 1)
        + p('<w:r><w:fldChar w:fldCharType="end"/></w:r>') + "</w:sdtContent></w:sdt>")
    add(p(r("Volume One"), "ChapterHeading"), "# Volume One")
    add(p(r("Chapter I"), "Heading2", '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'),
        "## Chapter I")
    one = emma(1, 6)
    add(p(r(one[0]) + '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr>'
          '<w:footnoteReference w:id="1"/></w:r>'), one[0] + "[^1]")
    add(p(r(one[1][:60]) + f'<w:ins w:id="11" w:author="Editor">{r(one[1][60:120])}</w:ins>'
          f'<w:del w:id="12" w:author="Editor"><w:r><w:delText>struck out words</w:delText></w:r></w:del>'
          + r(one[1][120:])), one[1])
    add(p('<w:commentRangeStart w:id="0"/>' + r(one[2]) + '<w:commentRangeEnd w:id="0"/>'
          '<w:r><w:commentReference w:id="0"/></w:r>'), one[2])
    add(p(r("Hartfield", '<w:b/><w:sz w:val="28"/>'), None, '<w:outlineLvl w:val="2"/>'), "### Hartfield")
    add(p(r(one[3]) + text_box("Highbury lies sixteen miles from London.")),
        one[3] + " Highbury lies sixteen miles from London.")
    add(p(f'<w:moveFrom w:id="21" w:author="Editor">{r("Moved away sentence.")}</w:moveFrom>'
          + r(one[4])), one[4])
    add(p(r(one[5] + " Printed on page ") + f'<w:fldSimple w:instr=" PAGE ">{r("3")}</w:fldSimple>'
          + r(", dated ") + fld("DATE \\@ \"d MMMM yyyy\"", "4 December 1815") + r(".")),
        one[5] + " Printed on page 3, dated 4 December 1815.")
    add(p(r("The household"), "Scene"), "### The household")
    people = [["Person", "House", "Note"], ["Emma Woodhouse", "Hartfield", "the heroine"],
              ["Mr. Woodhouse", "", "her father"], ["Mr. Knightley", "Donwell Abbey", "a neighbour"]]
    t = d.add_table(rows=4, cols=3)
    for i, row in enumerate(people):
        for j, cell in enumerate(row):
            if cell:
                t.cell(i, j).text = cell
    t.cell(1, 1).merge(t.cell(2, 1))  # Hartfield is both Woodhouses' house
    t.cell(3, 2).text = ""
    inner = t.cell(3, 2).add_table(rows=1, cols=2)
    inner.cell(0, 0).text, inner.cell(0, 1).text = "a neighbour", "and brother-in-law"
    sect.addprevious(t._tbl)
    md.append("| Person | House | Note |\n|---|---|---|\n| Emma Woodhouse | Hartfield | the heroine |\n"
              "| Mr. Woodhouse | | her father |\n| Mr. Knightley | Donwell Abbey | a neighbour and brother-in-law |")
    for text, style, ilvl in (("Hartfield, the house", "ListBullet", 0), ("its lawn", "ListBullet", 1),
                              ("its shrubberies", "ListBullet", 1), ("Randalls, the Westons'", "ListBullet", 0)):
        add(p(r(text), style, f'<w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="1"/></w:numPr>'),
            "    " * ilvl + "- " + text)
    add(p('<w:r><w:br w:type="page"/></w:r>' + r("Chapter II"), "Heading2"), "## Chapter II")
    two = emma(2, 3)
    add(p(r(two[0]) + '<w:r><w:rPr><w:rStyle w:val="EndnoteReference"/></w:rPr>'
          '<w:endnoteReference w:id="1"/></w:r>'), two[0] + "[^2]")
    add(p(r(two[1])), two[1])
    add(p(f'<w:del w:id="31" w:author="Editor"><w:r><w:delText>A deleted heading</w:delText></w:r></w:del>',
          "Heading2", '<w:rPr><w:del w:id="32" w:author="Editor"/></w:rPr>'))
    add(p(r(two[2])), two[2])
    notes_part(d, "footnote", {1: "Highbury is an invented village."})
    notes_part(d, "endnote", {1: "Mr. Weston's first wife was a Churchill."})
    md += ["[^1]: Highbury is an invented village.", "[^2]: Mr. Weston's first wife was a Churchill."]
    path = out / "word-like.docx"
    d.save(str(path))
    path.with_name("word-like.expected.md").write_text("\n\n".join(md) + "\n", encoding="utf-8")
    return path, "python-docx 1.2 with Word's raw WordprocessingML", None
