import VitalBridgeCLI

VitalBridgeCommand.runFromCommandLine()
