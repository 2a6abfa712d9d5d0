"""Baliza's domain and its web faces, one package per capability.

Packages import only those before them: i18n, law, core, media, documents, web, accounts, registry, certificates,
cycle, inspections, tablet, planning, fleet, notices, dashboard, ops; `blueprints.py` lists every face and `app.py`
builds the app (tests/test_layers.py holds the table).
"""
