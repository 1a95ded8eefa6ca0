import Foundation
import NIOCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An element of an S3 answer (`ListBucketResult`, `InitiateMultipartUploadResult`, `Error`, …) as a small tree, parsed
/// with Foundation's `XMLParser` (libxml2 on Linux; external entities are not resolved).
///
/// S3's answers are small, flat documents of named elements holding text, so a tree of names, texts and children is all
/// the clients need; namespaces are dropped.
package struct S3XMLElement: Sendable, Equatable {
    /// The element's local name.
    package var name: String
    /// The text directly inside it, entities decoded; trimmed only in elements that have children (a key may start with a space).
    package var text: String
    /// Its child elements in document order.
    package var children: [S3XMLElement]

    /// The first child named `name`.
    package func child(_ name: String) -> S3XMLElement? {
        children.first { $0.name == name }
    }

    /// Every child named `name`.
    package func children(_ name: String) -> [S3XMLElement] {
        children.filter { $0.name == name }
    }

    /// The text of the first child named `name`, or nil.
    package func value(_ name: String) -> String? {
        child(name)?.text
    }

    /// Parses a document; nil if it is not well-formed XML.
    package static func parse(_ buffer: ByteBuffer) -> S3XMLElement? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(buffer.readableBytesView))
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { return nil }
        return root
    }

    /// The `<Code>` of an S3 `<Error>` document (`NoSuchKey`, `SignatureDoesNotMatch`), or nil. Only the code is taken:
    /// some stores echo the string to sign and the access key id in the same document.
    package static func errorCode(in buffer: ByteBuffer) -> String? {
        guard buffer.readableBytes > 0, buffer.readableBytes < 65_536, let root = parse(buffer), root.name == "Error" else { return nil }
        return root.value("Code")
    }

    /// Collects the tree while the parser walks the document.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [S3XMLElement] = []
        var root: S3XMLElement?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            stack.append(S3XMLElement(name: local, text: "", children: []))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard var element = stack.popLast() else { return }
            // Keys may start or end with spaces; only elements with children (whose text is indentation) are trimmed.
            if !element.children.isEmpty { element.text = element.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}
