import VitalBridgeCLI

VitalBridgeCommand.main()
