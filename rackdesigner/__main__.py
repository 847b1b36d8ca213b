from rackdesigner.cli import program

program()
