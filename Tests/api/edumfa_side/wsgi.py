"""eduMFA's WSGI application as gunicorn serves it for the tests (privacyidea_server.py starts it
in eduMFA's venv, from this folder, as it does privacyIDEA's: keeping the server's side apart from
Tests/api's modules), with the one change issue 34 allows: its Firebase provider sends to
AuthPhone's FCM endpoint instead of Google's.

Environment: EDUMFA_CONFIGFILE (eduMFA's configuration file) and AUTHPHONE_URL.
"""

import os

from edumfa.app import create_app
from edumfa.lib.smsprovider import FirebaseProvider

# A module constant the provider formats with the service account's project id at each send (as
# privacyIDEA's does); set here, so in each gunicorn worker (each imports this module).
FirebaseProvider.FIREBASE_URL_SEND = os.environ["AUTHPHONE_URL"].rstrip("/") + "/v1/projects/{0!s}/messages:send"

application = create_app(config_name="production", config_file=os.environ["EDUMFA_CONFIGFILE"], silent=True)
