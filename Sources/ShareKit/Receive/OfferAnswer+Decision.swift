import ShareWire

/// The protocol's DECISION and ShareKit's ``OfferAnswer`` are the same answer: user interfaces
/// give and get the answer, the connection sends and reads the DECISION.
extension OfferAnswer {
    /// The answer a DECISION carries (its HAVE count is the connection's business).
    init(_ decision: Decision) {
        self.init(OfferAnswerCode(decision.code), message: decision.message)
    }
}

extension Decision {
    /// The DECISION that sends `answer`.
    init(_ answer: OfferAnswer) {
        self.init(DecisionCode(answer.code), message: answer.message)
    }
}

extension OfferAnswerCode {
    /// The code of a DECISION.
    init(_ code: DecisionCode) {
        switch code {
        case .accepted: self = .accepted
        case .declinedByUser: self = .declinedByUser
        case .nobodyToAsk: self = .nobodyToAsk
        case .insufficientSpace: self = .insufficientSpace
        case .refusedByPolicy: self = .refusedByPolicy
        case .busy: self = .busy
        case .noAnswer: self = .noAnswer
        case .cannotStore: self = .cannotStore
        }
    }
}

extension DecisionCode {
    /// The code a DECISION carries for `code`.
    init(_ code: OfferAnswerCode) {
        switch code {
        case .accepted: self = .accepted
        case .declinedByUser: self = .declinedByUser
        case .nobodyToAsk: self = .nobodyToAsk
        case .insufficientSpace: self = .insufficientSpace
        case .refusedByPolicy: self = .refusedByPolicy
        case .busy: self = .busy
        case .noAnswer: self = .noAnswer
        case .cannotStore: self = .cannotStore
        }
    }
}
