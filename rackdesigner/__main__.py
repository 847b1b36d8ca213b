import sys

from rackdesigner.cli import main

sys.exit(main())
