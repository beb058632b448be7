"""The ODT reader on what LibreOffice writes that pandoc does not: generated indexes (a table
of contents, an alphabetical index), frames anchored beside a paragraph, and code blocks with
the empty Preformatted paragraphs its HTML import leaves around them.
(bench/readers_writers.py measures the same structures on files LibreOffice saved.)"""

from __future__ import annotations

import os

import pytest

try:
    import lxml.etree  # noqa: F401  (the odt extra)
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("lxml is missing: pip install 'chunker-tree[odt]'", allow_module_level=True)

from chunker.readers.odt import extract_odt
from test_reader_odt import write_odt

TOC = """<text:table-of-content text:name="Table of Contents1"><text:table-of-content-source
 text:outline-level="3"><text:index-title-template>Contents</text:index-title-template>
 </text:table-of-content-source><text:index-body><text:index-title text:name="T_Head">
 <text:p text:style-name="Contents_20_Heading">Contents</text:p></text:index-title>
 <text:p text:style-name="Contents_20_1"><text:a xlink:type="simple" xlink:href="#__RefHeading__1">1.
 Owls<text:tab/>1</text:a></text:p></text:index-body></text:table-of-content>"""
INDEX = """<text:alphabetical-index text:name="Index1"><text:alphabetical-index-source/>
<text:index-body><text:p text:style-name="Index_20_1">barn owl, 1</text:p></text:index-body>
</text:alphabetical-index>"""


def test_generated_indexes_are_left_out(tmp_path):
    body = f'{TOC}<text:h text:outline-level="1">Owls</text:h><text:p>Barn owls hunt.</text:p>{INDEX}'
    got = extract_odt(write_odt(tmp_path / "toc.odt", body))
    got.check()
    assert got.markdown == "# Owls\n\nBarn owls hunt.\n"
    assert [p.paragraph for p in got.places] == [0, 1]


def test_a_frame_beside_a_paragraph_follows_it_and_one_in_the_line_stays(tmp_path):
    """LibreOffice moves a paragraph-anchored frame to the paragraph's start when it saves."""
    body = ('<text:h text:outline-level="1">Owls<draw:frame text:anchor-type="paragraph"><draw:text-box>'
            '<text:p>Heading box.</text:p></draw:text-box></draw:frame></text:h>'
            '<text:p><draw:frame text:anchor-type="paragraph"><draw:text-box><text:p>Owls live long.'
            '</text:p><text:p>Some reach 20.</text:p></draw:text-box></draw:frame>Barn owls hunt at '
            '<draw:frame text:anchor-type="as-char"><draw:text-box><text:p>night</text:p>'
            '</draw:text-box></draw:frame>.</text:p>')
    got = extract_odt(write_odt(tmp_path / "frames.odt", body))
    got.check()
    assert got.markdown == ("# Owls\n\nHeading box.\n\nBarn owls hunt at night.\n\nOwls live long."
                            "\n\nSome reach 20.\n")


def test_code_keeps_inner_blank_lines_but_none_around_it(tmp_path):
    empty = '<text:p text:style-name="Preformatted_20_Text"/>'
    body = (f'<text:p>Before.</text:p>{empty}<text:p text:style-name="P1">fn main() {{</text:p>'
            f'<text:p text:style-name="P1"/><text:p text:style-name="P1">}}</text:p>{empty}'
            f'<text:p>After.</text:p>')
    got = extract_odt(write_odt(tmp_path / "code.odt", body))
    got.check()
    assert got.markdown == "Before.\n\n```\nfn main() {\n\n}\n```\n\nAfter.\n"


def test_a_link_with_code_inside_is_one_link(tmp_path):
    body = ('<text:p>See the <text:a xlink:href="ch09.html">Errors with <text:span text:style-name="T1">'
            'panic!</text:span></text:a> section.</text:p>')
    md = extract_odt(write_odt(tmp_path / "link.odt", body)).markdown
    assert md == "See the [Errors with *panic!*](ch09.html) section.\n"
