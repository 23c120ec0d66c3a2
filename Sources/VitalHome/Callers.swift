import LayeredProtocol
import VitalBridge
import VitalStore

/// The callers the hub answers, changed: the whitelist file and each caller's person in the store.
extension Hub {
    /// Whitelists `caller` with `callback` (a callback URL to a custom app scheme, or `*` for a dynamic
    /// `callerurl`), receiving the readings of `person` (`nil`: of the home's one person when it has exactly one,
    /// and no person's otherwise), and writes the whitelist file. The person is set first, so that the caller never
    /// receives anyone's readings for a moment. Returns the whitelist as written.
    ///
    /// - Throws: ``HomeError`` saying `cannot whitelist <caller>: ` and why (an entry the whitelist refuses, a
    ///   person the home does not have), or that the file cannot be written.
    @discardableResult
    public func whitelist(_ caller: String, callback: String, person: String?) throws(HomeError) -> Whitelist {
        var whitelist = self.whitelist
        do {
            try whitelist.set(callback, for: caller)
        } catch {
            throw HomeError("cannot whitelist \(escapedCallerText(caller)): \(error)")
        }
        do {
            try store.people.setPerson(person, forCaller: caller)
        } catch {
            throw HomeError("cannot whitelist \(escapedCallerText(caller)): \(error.message)")
        }
        try Home.writeFile(whitelist.plist, to: home.whitelistPath)
        return whitelist
    }

    /// Removes `caller` from the whitelist file, then the person it named from the store. Returns the whitelist as
    /// written.
    ///
    /// - Throws: ``HomeError`` saying `<caller> is not whitelisted`, or that the file or the store cannot be
    ///   written.
    @discardableResult
    public func removeFromWhitelist(_ caller: String) throws(HomeError) -> Whitelist {
        var whitelist = self.whitelist
        guard whitelist.remove(caller) else { throw HomeError("\(escapedCallerText(caller)) is not whitelisted") }
        try Home.writeFile(whitelist.plist, to: home.whitelistPath)
        do {
            try store.people.setPerson(nil, forCaller: caller)
        } catch {
            throw HomeError("cannot remove \(escapedCallerText(caller)): \(error.message)")
        }
        return whitelist
    }
}
