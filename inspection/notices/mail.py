"""Email by the standard library: one SMTP connection per run, a timeout on every step, plain-text messages."""
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid


@dataclass(frozen=True)
class MailSettings:
    """Where and as whom to send (BALIZA_SMTP_HOST, BALIZA_SMTP_PORT, BALIZA_MAIL_FROM)."""

    host: str
    port: int
    sender: str
    timeout: float = 10


def mail_settings(config) -> MailSettings | None:
    """The app's SMTP settings, or None when no host or sender is configured (notices stay in-app)."""
    if not config.get("SMTP_HOST") or not config.get("MAIL_FROM"):
        return None
    return MailSettings(config["SMTP_HOST"], int(config.get("SMTP_PORT") or 25), config["MAIL_FROM"],
                        float(config.get("SMTP_TIMEOUT") or 10))


def compose(settings: MailSettings, to: str, subject: str, body: str, lang: str) -> EmailMessage:
    """A plain-text message marked as automatic (RFC 3834), so vacation replies do not answer it."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = settings.sender, to, subject
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message["Auto-Submitted"] = "auto-generated"
    message["Content-Language"] = lang
    message.set_content(body)
    return message


class Mailer:
    """An SMTP connection opened on the first message and closed with the block."""

    def __init__(self, settings: MailSettings):
        self.settings, self._smtp = settings, None

    def __enter__(self):
        return self

    def send(self, message: EmailMessage) -> None:
        """Send one message; an smtplib or socket error propagates (the caller keeps the notice retryable)."""
        if self._smtp is None:
            self._smtp = smtplib.SMTP(self.settings.host, self.settings.port, timeout=self.settings.timeout)
        try:
            self._smtp.send_message(message)
        except (smtplib.SMTPServerDisconnected, OSError):
            self._close()  # the next message opens a fresh connection
            raise

    def _close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                smtp.close()

    def __exit__(self, *exc):
        self._close()
        return False
