import Logging

/// The logger tests give the libraries, which take theirs from their caller: swift-log's default handler (standard
/// error), labelled so that a line in a test's output says where it came from.
public let testLogger = Logger(label: "org.vitalbridge.tests")
