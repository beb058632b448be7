"""`structures.fodt`, a flat OpenDocument text with what LibreOffice users make, saved by
LibreOffice as `libreoffice-structures.odt` and `.docx` (bench/writers_build.py).

The flat file is written here because LibreOffice's converters never make these structures from
HTML; the files the readers read are LibreOffice's own re-saves, in its own XML and its own
DOCX mapping of them. `structures.expected.md` is what a reader should give.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from writers_build import emma, esc

NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
      'xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"')

STYLES = """<office:styles>
<style:style style:name="Standard" style:family="paragraph"/>
<style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard"><style:text-properties fo:font-size="14pt"/></style:style>
<style:style style:name="Title" style:family="paragraph" style:parent-style-name="Heading"/>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="1"/>
<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="2"/>
<style:style style:name="Heading_20_3" style:display-name="Heading 3" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="3"/>
<style:style style:name="Part_20_Title" style:display-name="Part Title" style:family="paragraph" style:parent-style-name="Heading_20_1" style:default-outline-level="1"/>
<style:style style:name="Scene" style:family="paragraph" style:parent-style-name="Text_20_body" style:default-outline-level="3"><style:text-properties fo:font-weight="bold"/></style:style>
<style:style style:name="Contents_20_Heading" style:display-name="Contents Heading" style:family="paragraph" style:parent-style-name="Heading"/>
<style:style style:name="Contents_20_1" style:display-name="Contents 1" style:family="paragraph"/>
<style:style style:name="Contents_20_2" style:display-name="Contents 2" style:family="paragraph"/>
<style:style style:name="Table_20_Contents" style:display-name="Table Contents" style:family="paragraph"/>
<style:style style:name="Table_20_Heading" style:display-name="Table Heading" style:family="paragraph" style:parent-style-name="Table_20_Contents"/>
<style:style style:name="Caption" style:family="paragraph"/>
<style:style style:name="Table" style:family="paragraph" style:parent-style-name="Caption"/>
<style:style style:name="Frame_20_contents" style:display-name="Frame contents" style:family="paragraph"/>
<style:style style:name="Footnote" style:family="paragraph"/>
<style:style style:name="Endnote" style:family="paragraph"/>
<text:outline-style style:name="Outline">
 <text:outline-level-style text:level="1" style:num-format="1" style:num-suffix="."/>
 <text:outline-level-style text:level="2" style:num-format="1" text:display-levels="2" style:num-suffix="."/>
 <text:outline-level-style text:level="3" style:num-format="1" text:display-levels="3" style:num-suffix="."/>
</text:outline-style>
<text:list-style style:name="Numbering_20_123" style:display-name="Numbering 123">
 <text:list-level-style-number text:level="1" style:num-format="1" style:num-suffix="."/>
 <text:list-level-style-number text:level="2" style:num-format="1" style:num-suffix="."/>
</text:list-style>
<text:list-style style:name="List_20_1" style:display-name="List 1">
 <text:list-level-style-bullet text:level="1" text:bullet-char="•"/>
 <text:list-level-style-bullet text:level="2" text:bullet-char="◦"/>
</text:list-style>
</office:styles>
<office:master-styles><style:master-page style:name="Standard">
<style:header><text:p>Confidential draft, do not circulate</text:p></style:header>
<style:footer><text:p>Printed by the Highbury press, page <text:page-number>1</text:page-number></text:p></style:footer>
</style:master-page></office:master-styles>"""


ROWS2, COLS3 = 'table:number-rows-spanned="2"', 'table:number-columns-spanned="3"'


def p(text: str, style: str = "Text_20_body") -> str:
    return f'<text:p text:style-name="{style}">{text}</text:p>'


def h(text: str, level: int, style: str | None = None) -> str:
    return (f'<text:h text:style-name="{style or f"Heading_20_{level}"}" '
            f'text:outline-level="{level}">{esc(text)}</text:h>')


def cell(text: str, attrs: str = "", style: str = "Table_20_Contents") -> str:
    return f"<table:table-cell {attrs} office:value-type=\"string\">{p(esc(text), style)}</table:table-cell>"


def fodt(out: Path) -> tuple[Path, str]:
    one, two = emma(1, 6), emma(2, 4)
    md: list[str] = ["# Emma, an excerpt"]
    body = [p("Emma, an excerpt", "Title")]
    toc_entries = "".join(p(f'<text:a xlink:type="simple" xlink:href="#__RefHeading__{i}">{t}<text:tab/>{i + 1}</text:a>',
                            f"Contents_20_{lv}")
                          for i, (t, lv) in enumerate([("1. Volume One", 1), ("1.1. Chapter I", 2),
                                                      ("1.2. Chapter II", 2)]))
    body.append('<text:table-of-content text:name="Table of Contents1"><text:table-of-content-source '
                'text:outline-level="3"><text:index-title-template text:style-name="Contents_20_Heading">'
                'Contents</text:index-title-template></text:table-of-content-source><text:index-body>'
                '<text:index-title text:name="Table of Contents1_Head">'
                f'{p("Contents", "Contents_20_Heading")}</text:index-title>{toc_entries}'
                '</text:index-body></text:table-of-content>')
    body.append(h("Volume One", 1, "Part_20_Title"))
    md.append("# Volume One")
    body.append('<text:list text:style-name="Numbering_20_123"><text:list-item>'
                f'{h("Chapter I", 2)}</text:list-item></text:list>')
    md.append("## Chapter I")
    body.append(p(esc(one[0]) + '<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1'
                  '</text:note-citation><text:note-body><text:p text:style-name="Footnote">Highbury is an '
                  'invented village.</text:p></text:note-body></text:note>'))
    md.append(one[0] + "[^1]")
    body.append(p(esc(one[1][:80]) + '<text:change-start text:change-id="ct2"/>' + esc(one[1][80:160])
                  + '<text:change-end text:change-id="ct2"/><text:change text:change-id="ct1"/>'
                  + esc(one[1][160:])))
    md.append(one[1])
    body.append(p('<office:annotation><dc:creator>Editor</dc:creator><dc:date>2024-01-01T00:00:00</dc:date>'
                  '<text:p>Check the dates here.</text:p></office:annotation>' + esc(one[2])))
    md.append(one[2])
    body.append(h("Hartfield", 3, "Scene"))  # a custom style with an outline level: LibreOffice writes text:h
    md.append("### Hartfield")
    body.append(p(esc(one[3]) + '<draw:frame draw:name="Frame1" text:anchor-type="paragraph" svg:width="5cm">'
                  '<draw:text-box>' + p("Highbury lies sixteen miles from London.", "Frame_20_contents")
                  + '</draw:text-box></draw:frame>'))
    md.append(one[3] + " Highbury lies sixteen miles from London.")
    body.append(p(esc(one[4]) + ' Printed on page <text:page-number text:select-page="current">3</text:page-number>'
                  ', dated <text:date text:date-value="1815-12-04">4 December 1815</text:date>, in '
                  '<text:chapter text:display="name" text:outline-level="1">Volume One</text:chapter>.'))
    md.append(one[4] + " Printed on page 3, dated 4 December 1815, in Volume One.")
    body.append(h("The household", 3))
    md.append("### The household")
    body.append(p('Table <text:sequence text:ref-name="refTable0" text:name="Table" text:formula="ooow:Table+1" '
                  'style:num-format="1">1</text:sequence>: the household', "Table"))
    md.append("Table 1: the household")
    inner = ('<table:table table:name="Inner"><table:table-column table:number-columns-repeated="2"/>'
             f'<table:table-row>{cell("a neighbour")}{cell("and brother-in-law")}</table:table-row></table:table>')
    body.append('<table:table table:name="People"><table:table-column table:number-columns-repeated="3"/>'
                '<table:table-header-rows><table:table-row>'
                + "".join(cell(t, style="Table_20_Heading") for t in ("Person", "House", "Note"))
                + '</table:table-row></table:table-header-rows>'
                f'<table:table-row>{cell("Emma Woodhouse")}{cell("Hartfield", ROWS2)}'
                f'{cell("the heroine")}</table:table-row>'
                f'<table:table-row>{cell("Mr. Woodhouse")}<table:covered-table-cell/>{cell("her father")}</table:table-row>'
                f'<table:table-row>{cell("Mr. Knightley")}{cell("Donwell Abbey")}'
                f'<table:table-cell office:value-type="string">{inner}</table:table-cell></table:table-row>'
                f'<table:table-row>{cell("Three houses in all", COLS3)}'
                '<table:covered-table-cell/><table:covered-table-cell/></table:table-row></table:table>')
    md.append("| Person | House | Note |\n|---|---|---|\n| Emma Woodhouse | Hartfield | the heroine |\n"
              "| Mr. Woodhouse | | her father |\n| Mr. Knightley | Donwell Abbey | a neighbour and brother-in-law |\n"
              "| Three houses in all | | |")
    items = [("Hartfield, the house", [("its lawn"), ("its shrubberies")]), ("Randalls, the Westons'", [])]
    body.append('<text:list text:style-name="List_20_1">' + "".join(
        f'<text:list-item>{p(esc(t))}' + ("<text:list>" + "".join(
            f"<text:list-item>{p(esc(s))}</text:list-item>" for s in sub) + "</text:list>" if sub else "")
        + "</text:list-item>" for t, sub in items) + "</text:list>")
    md.append("- Hartfield, the house\n    - its lawn\n    - its shrubberies\n- Randalls, the Westons'")
    body.append('<text:section text:name="Section1">'
                '<text:list text:style-name="Numbering_20_123" text:continue-numbering="true"><text:list-item>'
                f'{h("Chapter II", 2)}</text:list-item></text:list>'
                + p(esc(two[0]) + '<text:note text:id="ftn2" text:note-class="endnote"><text:note-citation>i'
                    '</text:note-citation><text:note-body><text:p text:style-name="Endnote">Mr. Weston\'s first '
                    'wife was a Churchill.</text:p></text:note-body></text:note>')
                + p(esc(two[1])) + '<text:soft-page-break/>' + p(esc(two[2])) + "</text:section>")
    md += ["## Chapter II", two[0] + "[^2]", two[1], two[2]]
    md += ["[^1]: Highbury is an invented village.", "[^2]: Mr. Weston's first wife was a Churchill."]
    changes = ('<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info>'
               '<dc:creator>Editor</dc:creator><dc:date>2024-01-01T00:00:00</dc:date></office:change-info>'
               '<text:p>struck out words</text:p></text:deletion></text:changed-region>'
               '<text:changed-region text:id="ct2"><text:insertion><office:change-info><dc:creator>Editor'
               '</dc:creator><dc:date>2024-01-01T00:00:00</dc:date></office:change-info></text:insertion>'
               '</text:changed-region></text:tracked-changes>')
    xml = (f'<?xml version="1.0" encoding="UTF-8"?><office:document {NS} office:version="1.3" '
           'office:mimetype="application/vnd.oasis.opendocument.text"><office:meta><dc:title>Emma, an '
           'excerpt</dc:title><meta:initial-creator>Jane Austen</meta:initial-creator></office:meta>'
           f'{STYLES}<office:body><office:text>{changes}{"".join(body)}</office:text></office:body>'
           '</office:document>')
    path = out / "structures.fodt"
    path.write_text(xml, encoding="utf-8")
    (out / "structures.expected.md").write_text("\n\n".join(md) + "\n", encoding="utf-8")
    return path


def libreoffice_structures(out: Path) -> list[tuple]:
    from writers_make import soffice

    src = fodt(out)
    rows = []
    for ext, filt in (("odt", "odt:writer8"), ("docx", "docx:MS Word 2007 XML")):
        soffice(out / "lo", filt, [src])
        target = out / f"libreoffice-structures.{ext}"
        shutil.copy(out / "lo" / f"structures.{ext}", target)
        rows.append((target, "LibreOffice 7.4 (from a flat ODT)", None))
    return rows
