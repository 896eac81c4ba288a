"""privacyIDEA's WSGI application as gunicorn serves it for the tests (privacyidea_server.py starts
it in privacyIDEA's venv, from this folder: in Tests/api, privacyidea.py would hide the privacyidea
package), with the one change issue 34 allows: its Firebase provider sends to AuthPhone's FCM
endpoint instead of Google's.

Environment: PRIVACYIDEA_CONFIGFILE (privacyIDEA's configuration file) and AUTHPHONE_URL.
"""

import os

from privacyidea.app import create_app
from privacyidea.lib.smsprovider import FirebaseProvider

# A module constant the provider formats with the service account's project id at each send; set
# here, so in each gunicorn worker (each imports this module).
FirebaseProvider.FIREBASE_URL_SEND = os.environ["AUTHPHONE_URL"].rstrip("/") + "/v1/projects/{0!s}/messages:send"

application = create_app(config_name="production", config_file=os.environ["PRIVACYIDEA_CONFIGFILE"], silent=True)
