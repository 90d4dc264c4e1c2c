<?php
// Read JSON {"code": pattern, "alternative": pattern, "numerical": pattern, "texts": [...]} on
// stdin and print, as JSON, what PHP's PCRE finds in each text the way a cloze question's text is
// taken apart on import (question/type/multianswer/questiontype.php describes the steps): the
// first code, its alternatives one after the other (each match cut from the rest), each
// alternative's fraction marker, answer and feedback decoded with html_entity_decode() and with
// `\}` and `\#` unescaped; a numerical answer split into value and tolerance. Ours: the patterns
// come from the test (tests/test_moodlexml_structured.py), no Moodle code is used.
$in = json_decode(file_get_contents('php://stdin'), true);
$out = [];
foreach ($in['texts'] as $text) {
    $subs = [];
    while (preg_match('/' . $in['code'] . '/s', $text, $m)) {
        $numerical = !empty($m[3]);
        $alts = [];
        $rest = $m[16];
        while (preg_match('/~?' . $in['alternative'] . '/s', $rest, $a)) {
            $fraction = ($a[1] ?? '') === '=' ? '=' : ($a[2] ?? '');
            $feedback = null;
            if (isset($a[5])) {
                $feedback = str_replace('\#', '#', str_replace('\}', '}', html_entity_decode($a[5], ENT_QUOTES, 'UTF-8')));
            }
            if ($numerical && preg_match('~' . $in['numerical'] . '~s', $a[3], $n)) {
                $answer = [$n[1], array_key_exists(6, $n) ? $n[6] : '0'];
            } else {
                $answer = [str_replace('\#', '#', str_replace('\}', '}', html_entity_decode($a[3], ENT_QUOTES, 'UTF-8'))), null];
            }
            $alts[] = [$fraction, $answer[0], $answer[1], $feedback ?? ''];
            $rest = explode($a[0], $rest, 2)[1];
        }
        $subs[] = [$m[1], $m[2], $alts];
        $text = implode('{#' . count($subs) . '}', explode($m[0], $text, 2));
    }
    $out[] = ['text' => $text, 'subs' => $subs];
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE);
