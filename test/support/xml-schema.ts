import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

/**
 * Validates an XML document against an XML Schema with libxml2's xmllint (compiled to WebAssembly
 * and shipped by npm, so the check needs no system package): the same parser and schema checker
 * CI systems use on JUnit files. Answers the validator's error lines, empty when the document is
 * well-formed and valid.
 */
export async function schemaErrors(xml: string, xsdPath: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'schema.xsd', contents: readFileSync(xsdPath, 'utf8') }],
  });
  return result.errors.map((e) => e.rawMessage);
}
