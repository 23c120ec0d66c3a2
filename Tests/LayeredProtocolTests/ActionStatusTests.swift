import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("ActionStatus")
struct ActionStatusTests {
    typealias Case = (action: LayeredAction, ran: [StageOutcome], raw: Int, constant: ActionStatus)

    /// Every composite value the spec lists, with its comment's number.
    static let specValues: [Case] = [
        (.addMeasure, [.cancel], 16175, .addCancelMeasureNP),
        (.addMeasure, [.success, .success], 3855, .addSuccessMeasureSuccess),
        (.addMeasure, [.success, .fail], 7951, .addSuccessMeasureFail),
        (.addMeasure, [.success, .cancel], 12047, .addSuccessMeasureCancel),
        (.addSync, [.cancel], 62255, .addCancelSyncNP),
        (.addSync, [.success, .success], 61455, .addSuccessSyncSuccess),
        (.addSync, [.success, .fail], 61711, .addSuccessSyncFail),
        (.addSync, [.success, .cancel], 61967, .addSuccessSyncCancel),
        (.addSyncMeasure, [.cancel], 13103, .addCancelSyncNPMeasureNP),
        (.addSyncMeasure, [.success, .fail], 12559, .addSuccessSyncFailMeasureNP),
        (.addSyncMeasure, [.success, .cancel], 12815, .addSuccessSyncCancelMeasureNP),
        (.addSyncMeasure, [.success, .success, .cancel], 8207, .addSuccessSyncSuccessMeasureCancel),
        (.addSyncMeasure, [.success, .success, .fail], 4111, .addSuccessSyncSuccessMeasureFail),
        (.addSyncMeasure, [.success, .success, .success], 15, .addSuccessSyncSuccessMeasureSuccess),
        (.syncMeasure, [.cancel], 13055, .syncCancelMeasureNP),
        (.syncMeasure, [.fail], 12799, .syncFailMeasureNP),
        (.syncMeasure, [.success, .cancel], 8447, .syncSuccessMeasureCancel),
        (.syncMeasure, [.success, .fail], 4351, .syncSuccessMeasureFail),
        (.syncMeasure, [.success, .success], 255, .syncSuccessMeasureSuccess),
    ]

    @Test("reproduces every status value the spec lists", arguments: specValues)
    func specValue(_ value: Case) {
        let status = ActionStatus(action: value.action, ran: value.ran)
        #expect(status?.rawValue == value.raw)
        #expect(value.constant.rawValue == value.raw)
        let padded = value.ran + Array(repeating: .notPerformed, count: value.action.stages.count - value.ran.count)
        #expect(status?.outcomes(for: value.action) == padded)
    }

    /// Values the spec does not list, computed by the same formula.
    static let unlistedValues: [(LayeredAction, [StageOutcome], Int)] = [
        (.addMeasure, [.fail], 16159),  // add failed in cmd 3: 0x0F0F | 1 << 4 | 3 << 12
        (.addSync, [.fail], 0xF00F | 1 << 4 | 3 << 8),
        (.addSyncMeasure, [.fail], 0x000F | 1 << 4 | 3 << 8 | 3 << 12),
        (.addSyncMeasure, [.success, .fail], 12559),
    ]

    @Test("defines the values the spec omits", arguments: unlistedValues)
    func unlisted(action: LayeredAction, ran: [StageOutcome], raw: Int) {
        #expect(ActionStatus(action: action, ran: ran)?.rawValue == raw)
        #expect(ActionStatus(rawValue: raw).outcome(of: .add, for: action) == ran.first)
    }

    @Test("single-stage actions answer 0, 1 or 2", arguments: [LayeredAction.measure, .add, .sync])
    func single(action: LayeredAction) {
        #expect(ActionStatus(action: action, ran: [.success]) == .success)
        #expect(ActionStatus(action: action, ran: [.fail]) == .fail)
        #expect(ActionStatus(action: action, ran: [.cancel]) == .cancel)
        #expect(ActionStatus.success(action).rawValue == 0)
        #expect(ActionStatus(rawValue: 3).outcomes(for: action) == nil)
        #expect(ActionStatus.unknown.outcomes(for: action) == nil)
    }

    @Test("every run of every action round-trips through its status")
    func roundTrip() {
        for action in LayeredAction.allCases {
            var seen: Set<Int> = []
            for count in 1...action.stages.count {
                for last in [StageOutcome.success, .fail, .cancel] {
                    if count < action.stages.count, last == .success { continue }
                    let ran = Array(repeating: StageOutcome.success, count: count - 1) + [last]
                    let status = ActionStatus(action: action, ran: ran)!
                    #expect(seen.insert(status.rawValue).inserted)
                    #expect(status.outcomes(for: action)?.prefix(count).elementsEqual(ran) == true)
                }
            }
        }
    }

    @Test("impossible runs have no status")
    func impossibleRuns() {
        #expect(ActionStatus(action: .addSync, ran: []) == nil)
        #expect(ActionStatus(action: .addSync, ran: [.success]) == nil)
        #expect(ActionStatus(action: .addSync, ran: [.fail, .success]) == nil)
        #expect(ActionStatus(action: .addSync, ran: [.success, .notPerformed]) == nil)
        #expect(ActionStatus(action: .measure, ran: [.success, .success]) == nil)
    }

    @Test("statuses that no run of the action produces are not decoded")
    func foreignStatuses() {
        #expect(ActionStatus.addSuccessMeasureSuccess.outcomes(for: .addSync) == nil)
        #expect(ActionStatus.syncSuccessMeasureSuccess.outcomes(for: .addSyncMeasure) == nil)
        // add not performed although nothing failed before it
        #expect(ActionStatus(rawValue: 0x0F0F | 3 << 4 | 3 << 12).outcomes(for: .addMeasure) == nil)
        // measure ran after add failed
        #expect(ActionStatus(rawValue: 0x0F0F | 1 << 4 | 0 << 12).outcomes(for: .addMeasure) == nil)
        #expect(ActionStatus(rawValue: 0x0F0F | 4 << 4 | 3 << 12).outcomes(for: .addMeasure) == nil)
        #expect(ActionStatus(rawValue: 0x1_0F0F).outcomes(for: .addMeasure) == nil)
        #expect(ActionStatus(rawValue: -1).outcomes(for: .addMeasure) == nil)
    }
}
