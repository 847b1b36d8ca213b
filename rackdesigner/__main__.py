from rackdesigner.cli import entry

entry()
