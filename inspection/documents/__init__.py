"""Printed and downloaded documents: the shared fpdf2 drawing helpers, the certificate, the inspection report and fee
statement (dict in, PDF bytes out), and CSV exports that stream.
"""
