import VitalCore

/// How one stage of an action ended (the spec's `BaseAction…` values).
public enum StageOutcome: Int, CaseIterable, Hashable, Sendable {
    /// `0`
    case success = 0
    /// `1`
    case fail = 1
    /// `2`: the user cancelled.
    case cancel = 2
    /// `3`: the stage did not run because an earlier one did not succeed ("NP" in the spec).
    case notPerformed = 3
}

/// The `status` of a callback (the spec's `ActionStatus`).
///
/// Cmds 0, 1 and 2 answer a single stage outcome: `0` success, `1` fail, `2` cancel. Cmds 3 to 6 answer the
/// composite code `mask | add << 4 | sync << 8 | measure << 12`, one nibble a stage, with the stages the action
/// does not have set to `0xF` by the mask: `0x0F0F` (cmd 3), `0xF00F` (4), `0x000F` (5), `0x00FF` (6).
public struct ActionStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The status of `action` whose stages ran with `outcomes`, in stage order.
    ///
    /// `outcomes` lists the stages that ran: every one but the last must have succeeded. Stages after a failure
    /// or a cancel are "not performed". Returns `nil` if `outcomes` is empty, longer than the action's stages,
    /// has a non-success before its end, or contains ``StageOutcome/notPerformed``.
    public init?(action: LayeredAction, ran outcomes: some Collection<StageOutcome>) {
        let outcomes = Array(outcomes)
        let stages = action.stages
        guard !outcomes.isEmpty, outcomes.count <= stages.count,
            !outcomes.contains(.notPerformed),
            !outcomes.dropLast().contains(where: { $0 != .success })
        else { return nil }
        if outcomes.count < stages.count, outcomes.last == .success { return nil }
        if action.hasSingleStatus {
            self.rawValue = outcomes[0].rawValue
            return
        }
        var raw = Self.mask(for: action)
        for (index, stage) in stages.enumerated() {
            let outcome = index < outcomes.count ? outcomes[index] : .notPerformed
            raw |= outcome.rawValue << stage.statusShift
        }
        self.rawValue = raw
    }

    /// The status of `action` when every stage succeeded.
    public static func success(_ action: LayeredAction) -> ActionStatus {
        ActionStatus(action: action, ran: action.stages.map { _ in .success })!
    }

    /// The outcome of each of `action`'s stages, in stage order, or `nil` if this status is not one `action` can
    /// answer (a wrong mask, an outcome out of range, or an order no run can produce).
    public func outcomes(for action: LayeredAction) -> [StageOutcome]? {
        if action.hasSingleStatus {
            guard let outcome = StageOutcome(rawValue: rawValue), outcome != .notPerformed else { return nil }
            return [outcome]
        }
        let mask = Self.mask(for: action)
        let stageBits = action.stages.reduce(0) { $0 | 0xF << $1.statusShift }
        guard rawValue >= 0, rawValue <= 0xFFFF, rawValue & ~stageBits == mask else { return nil }
        let decoded = action.stages.compactMap { StageOutcome(rawValue: (rawValue >> $0.statusShift) & 0xF) }
        guard decoded.count == action.stages.count,
            ActionStatus(action: action, ran: decoded.prefix { $0 != .notPerformed }) == self
        else { return nil }
        return decoded
    }

    /// The outcome of `stage` in a status answering `action`, or `nil` if the action has no such stage or the
    /// status does not fit the action.
    public func outcome(of stage: Stage, for action: LayeredAction) -> StageOutcome? {
        guard let index = action.stages.firstIndex(of: stage) else { return nil }
        return outcomes(for: action)?[index]
    }

    /// The bits a composite status of `action` always has set; `0` for single-status actions.
    static func mask(for action: LayeredAction) -> Int {
        switch action {
        case .measure, .add, .sync: 0
        case .addMeasure: 0x0F0F
        case .addSync: 0xF00F
        case .addSyncMeasure: 0x000F
        case .syncMeasure: 0x00FF
        }
    }

    public var description: String { String(rawValue) }
}

extension ActionStatus {
    /// `-1`: the spec's placeholder `ActionStatusUnkown`; never sent.
    public static let unknown = ActionStatus(rawValue: -1)
    /// `0` (cmds 0, 1, 2).
    public static let success = ActionStatus(rawValue: 0)
    /// `1` (cmds 0, 1, 2).
    public static let fail = ActionStatus(rawValue: 1)
    /// `2` (cmds 0, 1, 2).
    public static let cancel = ActionStatus(rawValue: 2)

    /// `16175` (cmd 3).
    public static let addCancelMeasureNP = ActionStatus(rawValue: 16175)
    /// `3855` (cmd 3).
    public static let addSuccessMeasureSuccess = ActionStatus(rawValue: 3855)
    /// `7951` (cmd 3).
    public static let addSuccessMeasureFail = ActionStatus(rawValue: 7951)
    /// `12047` (cmd 3).
    public static let addSuccessMeasureCancel = ActionStatus(rawValue: 12047)

    /// `62255` (cmd 4).
    public static let addCancelSyncNP = ActionStatus(rawValue: 62255)
    /// `61455` (cmd 4).
    public static let addSuccessSyncSuccess = ActionStatus(rawValue: 61455)
    /// `61711` (cmd 4).
    public static let addSuccessSyncFail = ActionStatus(rawValue: 61711)
    /// `61967` (cmd 4).
    public static let addSuccessSyncCancel = ActionStatus(rawValue: 61967)

    /// `13103` (cmd 5).
    public static let addCancelSyncNPMeasureNP = ActionStatus(rawValue: 13103)
    /// `12559` (cmd 5).
    public static let addSuccessSyncFailMeasureNP = ActionStatus(rawValue: 12559)
    /// `12815` (cmd 5).
    public static let addSuccessSyncCancelMeasureNP = ActionStatus(rawValue: 12815)
    /// `8207` (cmd 5).
    public static let addSuccessSyncSuccessMeasureCancel = ActionStatus(rawValue: 8207)
    /// `4111` (cmd 5).
    public static let addSuccessSyncSuccessMeasureFail = ActionStatus(rawValue: 4111)
    /// `15` (cmd 5).
    public static let addSuccessSyncSuccessMeasureSuccess = ActionStatus(rawValue: 15)

    /// `13055` (cmd 6).
    public static let syncCancelMeasureNP = ActionStatus(rawValue: 13055)
    /// `12799` (cmd 6).
    public static let syncFailMeasureNP = ActionStatus(rawValue: 12799)
    /// `8447` (cmd 6).
    public static let syncSuccessMeasureCancel = ActionStatus(rawValue: 8447)
    /// `4351` (cmd 6).
    public static let syncSuccessMeasureFail = ActionStatus(rawValue: 4351)
    /// `255` (cmd 6).
    public static let syncSuccessMeasureSuccess = ActionStatus(rawValue: 255)
}
