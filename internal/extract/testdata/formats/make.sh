#!/bin/sh
# Regenerates the office fixtures of this folder with the tools that
# write these formats for real (Debian: pandoc python3-docx python3-odf
# python3-openpyxl qpdf). The tests read the committed files; CI needs
# none of these tools.
set -eu
cd "$(dirname "$0")"

/usr/bin/python3 - <<'PY'
import docx
d = docx.Document()
d.core_properties.title = "Cable Maintenance Handbook"
d.add_heading("Cable Maintenance Handbook", 0)
d.add_heading("Inspection", 1)
d.add_paragraph("Repeaters are inspected every eighteen months by the cable ship Monarch.")
d.add_heading("Splicing", 2)
d.add_paragraph("A splice takes about sixteen hours in calm weather.")
d.add_heading("Returns", 1)
d.add_paragraph("Faulty repeaters are returned to the depot at Porthcurno for repair.")
t = d.add_table(rows=2, cols=2)
t.cell(0, 0).text, t.cell(0, 1).text = "Part", "Depot"
t.cell(1, 0).text, t.cell(1, 1).text = "Repeater", "Porthcurno"
d.save("handbook.docx")

from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableRow, TableCell
from odf.text import P
ods = OpenDocumentSpreadsheet()
tab = Table(name="Stock")
for row in [["sku", "name", "stock"], ["C-100", "Deep-sea cable", "12"], [], ["C-200", "Shore-end cable", "3"]]:
    tr = TableRow()
    for v in row:
        tc = TableCell()
        tc.addElement(P(text=v))
        tr.addElement(tc)
    tab.addElement(tr)
ods.spreadsheet.addElement(tab)
ods.save("stock.ods")

import openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Prices"
for r in [["product_id", "name", "price"], ["SKU001", "TechBook Pro", 1499.0], ["SKU002", "TechBook Air", 999.0]]:
    ws.append(r)
ws2 = wb.create_sheet("Warranty")
for r in [["product_id", "years"], ["SKU001", 3]]:
    ws2.append(r)
wb.save("catalog.xlsx")

# An OpenDocument text: headings by outline level, a paragraph with a
# footnote, a list, a table, and a deletion kept for change tracking
# (neither the footnote nor the deleted text is the document's text).
from odf.opendocument import OpenDocumentText
from odf.style import Style, TextProperties
from odf.text import H, P, Span, List, ListItem, Note, NoteCitation, NoteBody, S, Tab, LineBreak
from odf.table import Table, TableColumn, TableRow, TableCell
odt = OpenDocumentText()
from odf.dc import Title
odt.meta.addElement(Title(text="Repeater Field Guide"))
from odf.text import TrackedChanges, ChangedRegion, Deletion, ChangeStart, ChangeEnd
from odf.office import ChangeInfo
from odf.namespaces import XMLNS
from odf.dc import Creator, Date
tc = TrackedChanges()
cr = ChangedRegion(qattributes={(XMLNS, "id"): "ct1"})
de = Deletion()
ci = ChangeInfo()
ci.addElement(Creator(text="editor"))
ci.addElement(Date(text="2024-01-01T00:00:00"))
de.addElement(ci)
de.addElement(P(text="The vault code is 4711."))
cr.addElement(de)
tc.addElement(cr)
odt.text.addElement(tc)
odt.text.addElement(H(outlinelevel=1, text="Repeater Field Guide"))
odt.text.addElement(H(outlinelevel=2, text="Recovery"))
p = P(text="A repeater is grappled from depths of up to ")
p.addElement(Span(text="eight kilometres"))
p.addText(", then lifted")
p.addElement(S(c=3))
p.addText("at dawn.")
n = Note(noteclass="footnote")
n.addElement(NoteCitation(text="1"))
nb = NoteBody()
nb.addElement(P(text="Weather permitting."))
n.addElement(nb)
p.addElement(n)
odt.text.addElement(p)
lst = List()
for t in ["Check the housing for leaks.", "Record the serial number."]:
    li = ListItem()
    li.addElement(P(text=t))
    lst.addElement(li)
odt.text.addElement(lst)
odt.text.addElement(H(outlinelevel=2, text="Depots"))
tab = Table(name="Depots")
tab.addElement(TableColumn(numbercolumnsrepeated=2))
for row in [["Depot", "Ship"], ["Porthcurno", "Monarch"]]:
    tr = TableRow()
    for v in row:
        tc = TableCell()
        tc.addElement(P(text=v))
        tr.addElement(tc)
    tab.addElement(tr)
odt.text.addElement(tab)
odt.text.addElement(P(text="Spares are kept dry."))
odt.save("guide.odt")
PY

cat > /tmp/deck.md <<'MD'
% Fibre Optics Briefing

# Why fibre

Light in glass carries a thousand times the traffic of copper.

# TAT-8

TAT-8 was the first transatlantic fibre-optic cable, in service from 1988.

- It linked the United States, Britain and France.
MD
pandoc /tmp/deck.md -o deck.pptx
cat > /tmp/book.md <<'MD'
---
title: The Cable Story
---

# The First Cable

The 1858 cable failed after three weeks of service.

## Wildman Whitehouse

Whitehouse applied two thousand volts and destroyed the insulation.

# The Great Eastern

The Great Eastern laid the 1866 cable in two weeks.
MD
pandoc /tmp/book.md -o book.epub

# A one-page PDF with a text layer, and one whose page is only drawn (as a
# scan is): written by hand, with qpdf making the cross-reference table.
pdf() { # $1: content stream
cat <<PDF
%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R
  /Resources << /Font << /F1 5 0 R >> >> >> endobj
4 0 obj << /Length ${#1} >> stream
$1
endstream endobj
5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R >>
%%EOF
PDF
}
pdf "BT /F1 12 Tf 72 700 Td (The vault code is kept by the harbour master.) Tj ET" > /tmp/plain.pdf
qpdf /tmp/plain.pdf plain.pdf 2>/dev/null || test $? -eq 3
pdf "0.5 g 72 72 468 648 re f" > /tmp/scan.pdf
qpdf /tmp/scan.pdf scan.pdf 2>/dev/null || test $? -eq 3
qpdf --encrypt user owner 256 -- plain.pdf encrypted.pdf
