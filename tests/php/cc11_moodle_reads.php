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
//           and the name (@title), general feedback (get_general_feedback) and each answer's
//           fraction and feedback (get_answers: get_feedback, get_score, get_answers_fib)
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

// The texts of the itemfeedbacks some displayfeedbacks name, each followed by a space, as
// entity11.quiz.class.php joins them.
function feedback_texts($x, $qi, $displays) {
    $out = '';
    foreach ($displays as $d) {
        $id = $d->getAttribute('linkrefid');
        $text = $x->query('xmlns:itemfeedback[@ident="' . $id . '"]/xmlns:flow_mat/xmlns:material/xmlns:mattext', $qi);
        $out .= $text->length && $text->item(0)->nodeValue !== '' ? $text->item(0)->nodeValue . ' ' : '';
    }
    return $out;
}

// get_general_feedback: the feedback every continuing condition shows.
function general_feedback($x, $qi) {
    $out = '';
    foreach ($x->query('xmlns:resprocessing/xmlns:respcondition', $qi) as $rc) {
        if (strtolower($rc->getAttribute('continue')) === 'yes') {
            $out .= feedback_texts($x, $qi, $x->query('xmlns:displayfeedback', $rc));
        }
    }
    return $out;
}

// get_answers for choices: each answer's feedback (get_feedback: every condition whose first
// varequal names it), its score (get_score: the last such condition's setvar, 1 or 0; a
// multiple response's right choices, varequal case="Yes" under the condition setting 100, 1/n).
function choice_answers($x, $qi, $profile) {
    $right = [];
    if ($profile === 'cc.multiple_response.v0p1') {
        foreach ($x->query('.//xmlns:setvar[@varname="SCORE"][.=100]/../xmlns:conditionvar//xmlns:varequal[@case="Yes"][not(parent::xmlns:not)]', $qi) as $v) {
            $right[$v->nodeValue] = true;
        }
    }
    $out = [];
    foreach ($x->query('xmlns:presentation/xmlns:response_lid/xmlns:render_choice/xmlns:response_label', $qi) as $label) {
        $ident = $label->getAttribute('ident');
        $feedback = '';
        $score = '';
        foreach ($x->query('xmlns:resprocessing/xmlns:respcondition', $qi) as $rc) {
            $first = $x->query('xmlns:conditionvar/xmlns:varequal', $rc);
            $first = $first->length ? $first->item(0)->nodeValue : '';
            if (strtolower($first) === strtolower($ident)) {
                $feedback .= feedback_texts($x, $qi, $x->query('xmlns:displayfeedback', $rc));
                $set = $x->query('xmlns:setvar', $rc);
                $score = $set->length ? $set->item(0)->nodeValue : '';
            }
        }
        $fraction = empty($score) ? 0.0 : 1.0;
        if ($right) {
            $fraction = isset($right[$ident]) ? round(1.0 / count($right), 7) : $fraction;
        }
        $out[] = ['ident' => $ident, 'fraction' => $fraction, 'feedback' => $feedback];
    }
    return $out;
}

// get_answers_fib: the varequals of the condition setting 100 are right answers (their feedback
// is stored in a misspelt array, $correctanswerfib, so it stays ''); every other condition's
// first varequal an answer worth 0 with the feedback it shows.
function fib_answers($x, $qi) {
    $right = [];
    $cond = $x->query('xmlns:resprocessing/xmlns:respcondition/xmlns:setvar[text()="100"]/..', $qi);
    if ($cond->length) {
        foreach ($x->query('xmlns:conditionvar/xmlns:varequal', $cond->item(0)) as $v) {
            if ($v->nodeValue !== '') {
                $right[$v->nodeValue] = ['ident' => $v->nodeValue, 'fraction' => 1.0, 'feedback' => ''];
            }
        }
    }
    $wrong = [];
    foreach ($x->query('xmlns:resprocessing/xmlns:respcondition', $qi) as $rc) {
        $set = $x->query('xmlns:setvar', $rc);
        if ($set->length && $set->item(0)->nodeValue === '100') {
            continue;
        }
        $v = $x->query('xmlns:conditionvar/xmlns:varequal', $rc);
        if (!$v->length) {
            continue;
        }
        $title = $v->item(0)->nodeValue;
        if (!isset($right[$title])) {
            $wrong[] = ['ident' => $title, 'fraction' => 0.0, 'feedback' => feedback_texts($x, $qi, $x->query('xmlns:displayfeedback', $rc))];
        }
    }
    return array_merge(array_values($right), $wrong);
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
            // get_questions: the name is the item's @title
            'name' => $qi->getAttribute('title'),
            'general_feedback' => general_feedback($x, $qi),
            'choices' => $profile === 'cc.fib.v0p1' ? fib_answers($x, $qi) : choice_answers($x, $qi, $profile),
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
