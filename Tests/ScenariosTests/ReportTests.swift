import Foundation
import FoundationXML
import Testing

@testable import Scenarios

@Suite("Reports: JUnit XML and JSON")
struct ReportTests {
    static func results() throws -> [ScenarioResult] {
        let scenarios = try ScenarioParser(file: "dir/a & b.yaml").parse(preamble + "  - call: GetToken\n---\n"
            + preamble.replacingOccurrences(of: "name: t", with: "name: \"u <2>\"") + "  - call: GetToken\n")
        return [
            ScenarioResult(scenario: scenarios[0], outcome: .passed, failures: [], seconds: 0.25),
            ScenarioResult(scenario: scenarios[1], outcome: .failed, failures: [
                ScenarioFailure(file: "dir/a & b.yaml", line: 12, column: 7, what: "expect.badge", expected: "3",
                                actual: "\"<none>\""),
            ], seconds: 0.5),
        ]
    }

    @Test func junitHasTheCommonShapeAndReadsBack() throws {
        let xml = JUnitReport.xml(try Self.results(), seconds: 0.75)
        let document = try XMLDocument(xmlString: xml)
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        #expect(root.attribute(forName: "tests")?.stringValue == "2")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == 1)
        let suite = try #require(suites.first)
        #expect(suite.attribute(forName: "name")?.stringValue == "dir/a & b.yaml")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == ["t", "u <2>"])
        #expect(cases.map { $0.attribute(forName: "classname")?.stringValue } == ["dir.a & b", "dir.a & b"])
        #expect(cases[0].elements(forName: "failure").isEmpty)
        let failure = try #require(cases[1].elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue
            == "dir/a & b.yaml:12:7: expect.badge: expected 3, got \"<none>\"")
        #expect(failure.attribute(forName: "type")?.stringValue == "ExpectationFailed")
        #expect(cases[1].attribute(forName: "time")?.stringValue == "0.500")
    }

    @Test func jsonReportCarriesEveryFailureField() throws {
        let data = try JSONReport.data(try Self.results(), seconds: 0.75)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["total"] as? Int == 2)
        #expect(object["failed"] as? Int == 1)
        let scenarios = try #require(object["scenarios"] as? [[String: Any]])
        let failure = try #require((scenarios[1]["failures"] as? [[String: Any]])?.first)
        #expect(failure["location"] as? String == "dir/a & b.yaml:12:7")
        #expect(failure["expected"] as? String == "3")
        #expect(scenarios[0]["outcome"] as? String == "passed")
    }
}
