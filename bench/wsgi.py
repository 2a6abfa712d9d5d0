"""The real Baliza app for gunicorn (`bench.wsgi:app`), configured by the BALIZA_* environment variables."""
from app import create_app

app = create_app()
