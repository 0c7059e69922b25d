"""Prints the form fields of a PDF: python3 extract.py FILE."""
import sys

from pypdf import PdfReader

for name, field in (PdfReader(sys.argv[1]).get_fields() or {}).items():
    print(f"{name}: {field.get('/V')}")
