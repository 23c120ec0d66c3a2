import Locking
import Testing

@Suite("Locked")
struct LockedTests {
    @Test("changes from many tasks at once are all kept")
    func concurrentChanges() async {
        let counts = Locked<[Int: Int]>([:])
        await withTaskGroup { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counts.withLock { $0[task, default: 0] += 1 } }
                }
            }
        }
        #expect(counts.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, 10_000) }))
    }

    @Test("withLock returns what its body returns")
    func returnsTheBodysResult() {
        let names = Locked<Set<String>>(["BP5"])
        #expect(names.withLock { $0.insert("PO3").inserted })
        #expect(!names.withLock { $0.insert("PO3").inserted })
        #expect(names.withLock { $0 } == ["BP5", "PO3"])
    }

    struct Refused: Error, Equatable {}

    @Test("a throwing body's error reaches the caller with its type, its changes are kept and the lock is released")
    func throwingBody() {
        let value = Locked(1)
        #expect(throws: Refused()) {
            try value.withLock { (number: inout Int) throws(Refused) in
                number = 2
                throw Refused()
            }
        }
        // a lock still held would deadlock here
        #expect(value.withLock { $0 } == 2)
    }
}
