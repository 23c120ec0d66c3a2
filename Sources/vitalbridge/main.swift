import VitalBridgeCLI

await VitalBridgeCommand.runFromCommandLine()
