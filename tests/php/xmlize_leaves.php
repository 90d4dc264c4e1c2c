<?php
// Parse each file named on the command line the way Moodle's xmlize() does for its XML
// importer (lib/xmlize.php: trim, xml_parser_create('UTF-8'), no case folding, white space
// kept, xml_parse_into_struct) and print, as JSON, every element without child elements in
// document order: [tag, attributes, text]. tests/test_moodlexml_php.py compares the result
// with what lxml (lmsexport's reader) sees in the same file.
$out = [];
foreach (array_slice($argv, 1) as $file) {
    $parser = xml_parser_create('UTF-8');
    xml_parser_set_option($parser, XML_OPTION_CASE_FOLDING, 0);
    xml_parser_set_option($parser, XML_OPTION_SKIP_WHITE, 0);
    $vals = [];
    $ok = xml_parse_into_struct($parser, trim(file_get_contents($file)), $vals);
    $error = $ok ? null : xml_error_string(xml_get_error_code($parser));
    xml_parser_free($parser);
    $leaves = [];
    foreach ($vals as $v) {
        if ($v['type'] === 'complete') {
            $leaves[] = [$v['tag'], $v['attributes'] ?? new stdClass(), $v['value'] ?? ''];
        }
    }
    $out[$file] = ['error' => $error, 'leaves' => $leaves];
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE);
