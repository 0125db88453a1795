"""The mail server's reasons in a lead's words, the raw text kept."""

import pytest

from staffing.mail_errors import OTHER, mail_error_words


@pytest.mark.parametrize(
    ("last_error", "words"),
    [
        ("ConnectionRefusedError: [Errno 111] Connection refused", "the mail server could not be reached"),
        ("SMTPAuthenticationError: (535, b'5.7.8 bad credentials')", "did not accept this installation's user name"),
        ("gaierror: [Errno -2] Name or service not known", "host name was not found"),
        ("SMTPNotSupportedError: STARTTLS extension not supported", OTHER),
        # written by the job in words already: kept as it is
        ("the invite was revoked before the email went out", "the invite was revoked before the email went out"),
        ("", ""),
    ],
)
def test_a_lead_reads_the_mail_server_s_reason_in_words(last_error, words):
    assert words in mail_error_words(last_error)
    assert (mail_error_words(last_error) == last_error) == (not last_error.partition(": ")[1])
