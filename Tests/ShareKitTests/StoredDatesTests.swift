import Foundation
import Testing

@testable import ShareKit

/// Dates in share's metadata files are written without `ISO8601DateFormatter` (it loads ICU's time
/// zone data on first use, on the receiver's way to accepting an offer): the text must stay what the
/// formatter writes, so files written before and after read the same.
struct StoredDatesTests {
    @Test func datesAreWrittenAsTheFormatterWritesThem() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions.insert(.withFractionalSeconds)
        let dates = [
            Date(), Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_000_000.9996),
            Date(timeIntervalSince1970: 1_795_000_000.0004), Date(timeIntervalSince1970: -1.25),
            Date(timeIntervalSince1970: -86_400 * 365 * 100 + 0.5), Date(timeIntervalSince1970: 951_782_400.123),
            Date(timeIntervalSince1970: 253_402_300_799.999),
        ]
        for date in dates {
            #expect(StoredDates.text(of: date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func writtenDatesReadBackToTheMillisecond() throws {
        struct Record: Codable { var at: Date }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = StoredDates.encoding
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = StoredDates.decoding
        let date = Date(timeIntervalSince1970: 1_795_000_000.25)
        let read = try decoder.decode(Record.self, from: encoder.encode(Record(at: date)))
        #expect(read.at == date)
    }
}
