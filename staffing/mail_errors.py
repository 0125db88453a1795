"""The mail server's reasons for an email not sent, in words a lead can act on.

The email jobs keep the failure as ``"<exception name>: <message>"`` (``InviteEmail.last_error``); a lead reads
the sentence for its name; the raw text is logged for whoever runs the installation
(staffing.services.invite_emails), never shown on a page.
"""

_WORDS = {
    "ConnectionRefusedError": "the mail server could not be reached (nothing answered at its address and port)",
    "TimeoutError": "the mail server did not answer in time",
    "gaierror": "the mail server's host name was not found",
    "SSLError": "the secure connection to the mail server failed",
    "SMTPConnectError": "the mail server turned the connection down",
    "SMTPServerDisconnected": "the mail server closed the connection before the email was sent",
    "SMTPAuthenticationError": "the mail server did not accept this installation's user name and password",
    "SMTPSenderRefused": "the mail server refused the sender's address",
    "SMTPRecipientsRefused": "the mail server refused the recipient's address",
    "SMTPDataError": "the mail server refused the email",
}
OTHER = "the mail server did not take the email"


def mail_error_words(last_error: str) -> str:
    """``last_error`` in words: the sentence for its exception's name, or itself when it is in words already
    (e.g. "the invite was revoked before the email went out")."""
    name, sep, _ = last_error.partition(": ")
    if not sep or not name.isidentifier():
        return last_error
    return _WORDS.get(name, OTHER)
