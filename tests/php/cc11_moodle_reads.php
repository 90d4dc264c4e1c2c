<?php
// Read an unzipped Common Cartridge 1.1 the way Moodle's cartridge restore reads one, with PHP's
// own DOM and libxml2, and print what it finds as JSON (ours: no Moodle code is used; each step
// names the Moodle code whose queries it repeats). tests/test_cc11_moodle.py checks the result.
//
//   php cc11_moodle_reads.php CARTRIDGE_DIR SCHEMA_XSD LOCATIONS_JSON
//
// Nothing is fetched: libxml2's external loader maps each schema URL to the bundled copy
// (schemas/locations.json, the data of schemas/catalog.xml; Moodle ships its own copies
// with local imports), lets local files through and refuses any other URL.
//
// detected: backup/converter/imscc11/lib.php detect_format: the manifest's first 500 bytes,
//           lower-cased, without white space and quotes, contain
//           xmlns=http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1
// valid:    backup/cc/validator.php manifest_validator: DOMDocument::load(LIBXML_NONET), then
//           schemaValidate(schemas11/cc11libxml2validator.xsd)
// quizzes:  backup/cc/cc2moodle.php create_instances and entity11.quiz.class.php: every
//           organization item whose resource is an assessment, its questions as
//           /questestinterop/assessment/section/item, each with get_question_type (cc_profile ->
//           Moodle type), get_defaultgrade (cc_weighting, an int 0-99, else 1), the answers'
//           idents, and the images of its text resolved as update_sources resolves them
// banks:    the question-bank resources (cc2moodle.php create_code_info_details_mod)
$dir = $argv[1];
$schema = $argv[2];
$locations = json_decode(file_get_contents($argv[3]), true)['map'];
$schemas = realpath(dirname($argv[3]));
libxml_set_external_entity_loader(function ($public, $system, $context) use ($locations, $schemas) {
    if (isset($locations[$system])) {
        return $schemas . '/' . $locations[$system];
    }
    foreach ($locations as $url => $path) {
        if (substr($url, -1) === '/' && strncmp($system, $url, strlen($url)) === 0) {
            return $schemas . '/' . $path . substr($system, strlen($url));
        }
    }
    if (!preg_match('#^[a-z][a-z0-9+.-]*:#i', $system) && realpath($system) !== false) {
        return realpath($system); // a local file (the cartridge's, a bundled schema)
    }
    return null; // any other URL: refused, never fetched
});
$manifestPath = $dir . '/imsmanifest.xml';
$ccns = 'http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1';
$qtins = 'http://www.imsglobal.org/xsd/ims_qtiasiv1p2';

$head = strtolower(file_get_contents($manifestPath, false, null, 0, 500));
$head = str_replace(["'", '"'], '', preg_replace('/\s*/m', '', $head));
$out = ['detected' => strpos($head, 'xmlns=' . $ccns) !== false];

libxml_use_internal_errors(true);
$manifest = new DOMDocument();
$loaded = $manifest->load($manifestPath, LIBXML_NONET);
$out['valid'] = $loaded && $manifest->schemaValidate($schema);
$out['errors'] = array_map(fn($e) => trim($e->message), libxml_get_errors());
libxml_clear_errors();

$types = [
    'cc.multiple_choice.v0p1' => 'multichoice',
    'cc.multiple_response.v0p1' => 'multichoice',
    'cc.true_false.v0p1' => 'truefalse',
    'cc.essay.v0p1' => 'essay',
    'cc.fib.v0p1' => 'shortanswer',
    'cc.pattern_match.v0p1' => 'shortanswer',
];

function full_path($path) {
    // entities.class.php full_path: resolve . and .. segments
    $parts = [];
    foreach (explode('/', $path) as $part) {
        if ($part === '' || $part === '.') {
            continue;
        }
        if ($part === '..') {
            array_pop($parts);
        } else {
            $parts[] = $part;
        }
    }
    return implode('/', $parts);
}

$mx = new DOMXPath($manifest);
$mx->registerNamespace('imscc', $ccns);
$quizzes = [];
foreach ($mx->query('/imscc:manifest/imscc:organizations/imscc:organization//imscc:item[@identifierref]') as $item) {
    $ref = $item->getAttribute('identifierref');
    $res = $mx->query('/imscc:manifest/imscc:resources/imscc:resource[@identifier="' . $ref . '"]')->item(0);
    if ($res === null || $res->getAttribute('type') !== 'imsqti_xmlv1p2/imscc_xmlv1p1/assessment') {
        continue;
    }
    $file = $mx->query('imscc:file/@href', $res)->item(0)->nodeValue;
    $doc = new DOMDocument();
    $doc->load($dir . '/' . $file, LIBXML_NONET);
    $x = new DOMXPath($doc);
    $x->registerNamespace('xmlns', $qtins);
    $questions = [];
    foreach ($x->query('/xmlns:questestinterop/xmlns:assessment/xmlns:section/xmlns:item') as $qi) {
        $ident = $qi->getAttribute('ident');
        $profile = '';
        foreach ($x->query('xmlns:itemmetadata/xmlns:qtimetadata/xmlns:qtimetadatafield', $qi) as $field) {
            if ($x->query('xmlns:fieldlabel', $field)->item(0)->nodeValue === 'cc_profile') {
                $profile = $x->query('xmlns:fieldentry', $field)->item(0)->nodeValue;
            }
        }
        $grade = 1;
        $weight = $x->query('.//xmlns:qtimetadatafield[xmlns:fieldlabel="cc_weighting"]/xmlns:fieldentry', $qi);
        if ($weight->length > 0) {
            $value = (int)$weight->item(0)->nodeValue;
            if ($value >= 0 && $value <= 99) {
                $grade = $value;
            }
        }
        $answers = [];
        foreach ($x->query('xmlns:presentation/xmlns:response_lid/xmlns:render_choice/xmlns:response_label/@ident', $qi) as $a) {
            $answers[] = $a->nodeValue;
        }
        $text = $x->query('xmlns:presentation/xmlns:material/xmlns:mattext', $qi)->item(0)->nodeValue;
        $html = new DOMDocument();
        @$html->loadHTML('<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /></head><body>' . $text . '</body></html>');
        $images = [];
        foreach ($html->getElementsByTagName('img') as $img) {
            $src = $img->getAttribute('src');
            if (parse_url($src, PHP_URL_SCHEME)) {
                $images[] = ['src' => $src, 'file' => null];
                continue;
            }
            $path = full_path(dirname($file) . '/' . str_replace('$IMS-CC-FILEBASE$', '', $src));
            $images[] = ['src' => $src, 'file' => $path, 'exists' => is_file($dir . '/' . $path)];
        }
        $questions[] = [
            'ident' => $ident,
            'cc_profile' => $profile,
            'moodle_type' => $types[$profile] ?? '',
            'defaultgrade' => $grade,
            'answers' => $answers,
            'images' => $images,
        ];
    }
    $quizzes[] = [
        'title' => $mx->query('imscc:title', $item)->item(0)->nodeValue,
        'resource' => $ref,
        'questions' => $questions,
    ];
}
$out['quizzes'] = $quizzes;
$banks = $mx->query('/imscc:manifest/imscc:resources/imscc:resource[@type="imsqti_xmlv1p2/imscc_xmlv1p1/question-bank"]');
$out['banks'] = $banks->length;
$files = [];
foreach (['webcontent', 'associatedcontent/imscc_xmlv1p1/learning-application-resource'] as $type) {
    foreach ($mx->query('/imscc:manifest/imscc:resources/imscc:resource[@type="' . $type . '"]/imscc:file/@href') as $href) {
        $files[] = $href->nodeValue;
    }
}
$out['course_files'] = $files;
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRETTY_PRINT);
