// share's DATA compressor alone, without disk or network (a companion of `make bench`'s part 9,
// Tests/Benchmarks/compression.sh, run by hand to see where the level's time goes), on folders such
// as those of make-compression-sets.sh. For each set and level: `ChunkCompressor` at that fixed
// level (every file cut into 1 MiB chunks, as the sender reads them; the sample rule on, the type
// rule off) and `ChunkDecompressor` on what it made; then the whole policy as a sender starts a
// transfer (the type rule on, the start level). Files are read into memory first: no disk in the
// times. The median of ROUNDS.
//
//   CompressionBench [--rounds N] [--levels L,L,...] NAME=FOLDER...
//
//   swift run -c release CompressionBench source=DIR text=DIR media=DIR
//
// Prints tab-separated lines:
//   level  NAME LEVEL FILE_BYTES PAYLOAD_BYTES COMPRESS_SECONDS DECOMPRESS_SECONDS ZSTD_CHUNKS RAW_CHUNKS
//   policy NAME FILES FILE_BYTES PAYLOAD_BYTES SECONDS FILES_SKIPPED_BY_TYPE SAMPLES_REFUSED ZSTD_CHUNKS RAW_CHUNKS
import Foundation
import ShareKit
import ShareWire
import TypeRegistry

struct SourceFile {
    let path: String
    let chunks: [[UInt8]]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CompressionBench: \(message)\n".utf8))
    exit(1)
}

func load(_ folder: String) -> [SourceFile] {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { fail("cannot read \(folder)") }
    var files: [SourceFile] = []
    for case let relative as String in walker {
        let path = folder + "/" + relative
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            let data = FileManager.default.contents(atPath: path), !data.isEmpty
        else { continue }
        let bytes = [UInt8](data)
        let chunks = stride(from: 0, to: bytes.count, by: FrameType.maxDataBytes).map {
            Array(bytes[$0..<min($0 + FrameType.maxDataBytes, bytes.count)])
        }
        files.append(SourceFile(path: relative, chunks: chunks))
    }
    return files.sorted { $0.path < $1.path }
}

/// Sends every file through `compressor`; returns the chunks and the seconds it took.
func compress(_ files: [SourceFile], with compressor: ChunkCompressor) -> ([DataChunk], Double) {
    var out: [DataChunk] = []
    let started = ContinuousClock.now
    for (index, file) in files.enumerated() {
        compressor.startFile(path: file.path)
        var offset: UInt64 = 0
        for chunk in file.chunks {
            out.append(compressor.chunk(fileIndex: UInt32(index), offset: offset, bytes: chunk))
            offset += UInt64(chunk.count)
        }
    }
    return (out, (ContinuousClock.now - started).seconds)
}

func decompress(_ chunks: [DataChunk]) -> Double {
    let decompressor = ChunkDecompressor()
    let started = ContinuousClock.now
    var total = 0
    for chunk in chunks {
        do { total += try decompressor.fileBytes(of: chunk).count } catch { fail("\(error)") }
    }
    precondition(total > 0)
    return (ContinuousClock.now - started).seconds
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

var rounds = 3
var levels = [-5, -1, 1, 3, 6, 9]
var sets: [(String, String)] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--rounds":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { fail("--rounds needs a number") }
        rounds = value
    case "--levels":
        let list = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        guard !list.isEmpty else { fail("--levels needs numbers separated by commas") }
        levels = list
    default:
        guard let equals = argument.firstIndex(of: "=") else { fail("expected NAME=FOLDER, got \(argument)") }
        sets.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
    }
}
if sets.isEmpty { fail("usage: CompressionBench [--rounds N] [--levels L,...] NAME=FOLDER...") }

let registry = TypeRegistry.load()
for (name, folder) in sets {
    let files = load(folder)
    let fileBytes = files.reduce(0) { $0 + $1.chunks.reduce(0) { $0 + $1.count } }
    for level in levels {
        let settings = CompressionSettings(levels: level...level, startLevel: level, decisionBytes: Int.max)
        var compressTimes: [Double] = []
        var decompressTimes: [Double] = []
        var chunks: [DataChunk] = []
        for _ in 0..<rounds {
            let (made, seconds) = compress(files, with: ChunkCompressor(settings: settings, types: nil, pace: LinkPace()))
            chunks = made
            compressTimes.append(seconds)
            decompressTimes.append(decompress(made))
        }
        let payload = chunks.reduce(0) { $0 + $1.bytes.count }
        let zstd = chunks.filter { if case .zstd = $0.encoding { true } else { false } }.count
        print(["level", name, "\(level)", "\(fileBytes)", "\(payload)", "\(median(compressTimes))", "\(median(decompressTimes))",
               "\(zstd)", "\(chunks.count - zstd)"].joined(separator: "\t"))
    }
    var times: [Double] = []
    var statistics: CompressionStatistics?
    for _ in 0..<rounds {
        let compressor = ChunkCompressor(types: CompressedTypes(registry: registry), pace: LinkPace())
        times.append(compress(files, with: compressor).1)
        statistics = compressor.statistics
    }
    guard let statistics else { fail("no rounds") }
    print(["policy", name, "\(files.count)", "\(statistics.fileBytes)", "\(statistics.payloadBytes)", "\(median(times))",
           "\(statistics.filesSkippedByType)", "\(statistics.samplesRefused)", "\(statistics.compressedChunks)",
           "\(statistics.rawChunks)"].joined(separator: "\t"))
}
