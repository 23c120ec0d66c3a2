import Foundation

print("hello from Foundation \(ProcessInfo.processInfo.processIdentifier > 0)")
