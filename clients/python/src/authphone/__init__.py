"""A Python client of AuthPhone, the simulated mobile authenticator: phones that scan, get
pushes and texts and answer, the demo backend's sessions, the push service, the SMS gateway,
and a pytest plugin (`authphone.pytest_plugin`). docs/python-client.md in the repository documents every call."""

from .backend import Backend, Session
from .client import AuthPhone
from .errors import (AuthPhoneError, BadRequestError, ConflictError, NotFoundError, ServerError,
                     ServerStartError, WaitTimeout)
from .events import Event, EventStream
from .models import Flow, Rule, SMSAccount, Started, TextMessage
from .phone import Phone
from .push import Push
from .recordings import Recording, Recordings
from .sms import Messages, SMSGateway

__all__ = ["AuthPhone", "AuthPhoneError", "Backend", "BadRequestError", "ConflictError", "Event", "EventStream",
           "Flow", "Messages", "NotFoundError", "Phone", "Push", "Recording", "Recordings", "Rule", "SMSAccount",
           "SMSGateway", "ServerError", "ServerStartError", "Session", "Started", "TextMessage", "WaitTimeout"]
